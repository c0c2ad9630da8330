/**
 * A running node: opens the home's stores (the state commitment first, whose lock keeps a
 * second process out), serves the EVM JSON-RPC (HTTP and WebSocket), the consensus RPC and
 * the metrics, and — on the genesis validator — produces a block every `timeout_commit`.
 * stop() shuts down in order: no new blocks, no new requests, then the stores (the SS write
 * queue is drained).
 */
import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { availableParallelism } from 'node:os';
import type { App, Genesis } from '../app/index.js';
import { BlockStore } from '../chain/block-store.js';
import { BlockSigner, loadNodeKey } from '../chain/keys.js';
import { Mempool, type CheckResult } from '../chain/mempool.js';
import { ProposalFileError, loadProposal, proposalPath, removeProposal, type Proposal } from '../chain/proposal.js';
import { loadConfig, type LoadedConfig } from '../config/index.js';
import { VERSION } from './version.js';
import { Logger } from '../log/logger.js';
import { LogRing } from '../log/ring-buffer.js';
import { RotatingFile } from '../log/rotating-file.js';
import { CrashReporter, TestCrashError, testCrashHeight } from './crash-report.js';
import { lagStatus, registerConsensusRoutes, registerMetricsRoute } from '../rpc/consensus/index.js';
import { createDebugMethods } from '../rpc/debug/index.js';
import { createEthMethods } from '../rpc/eth/index.js';
import { rpcErrorOf } from '../rpc/errors.js';
import { Dispatcher, serveJsonRpc } from '../rpc/jsonrpc/index.js';
import { createHttpTransport, type HttpTransport } from '../rpc/transport/index.js';
import { NodeConsensusBackend } from './consensus-backend.js';
import { checkGenesis, recordGenesis } from './genesis-record.js';
import { homeHeldByAnotherProcess, homeHeldMessage } from './home-lock.js';
import { firstBusyPort, type PortClaim } from './port-check.js';
import { memoryBudgetOf, openHomeApp } from './app-options.js';
import { NodeEthBackend } from './eth-backend.js';
import { NodeNetwork } from './network.js';
import { homePaths, type HomePaths } from './home.js';
import { loadHomeValidatorKey } from './validator-key-file.js';
import { BlockProducer, type ResumedProposal } from './producer.js';
import { startSnapshotScheduler } from './snapshot-scheduler.js';
import { stateSyncAtStart } from './state-sync.js';
import { WorkerCallExecutor, WorkerDebugBackend, WorkerPool } from './execution-workers/index.js';
import { ChainProvider } from '../provider/index.js';
import { bytesHex, plainHex } from '../util/hex.js';
import { mallocArenas, mallocUsage, snapshotsDir } from '../store/index.js';
import { NATIVE_HEAP_TRIM_MS, NativeHeapTrimmer } from './native-heap-trim.js';
import { traceLimitsOf } from '../trace/index.js';
import { importedNextBaseFee } from './imported-fees.js';
import { recoveryClock } from '../evm/recovery-clock.js';
import { BlockStageTimes } from './block-stage-times.js';
import { NodeMetrics } from './metrics.js';

/** Ports the node listens on (0 in tests picks free ones). */
export interface BoundPorts {
  http: number;
  ws: number;
  consensus: number;
  metrics: number;
  /** The peer-to-peer port (`[p2p] laddr`); 0 when the home has no node key. */
  p2p: number;
}

/** Thrown when the home cannot start; the message says what to do. */
export class NodeStartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NodeStartError';
  }
}

/**
 * Re-executes the stored blocks the state has not committed (after a rollback), as CometBFT's
 * handshake replays them; each must reproduce the app hash the next stored header carries.
 */
async function replayStoredBlocks(app: App, store: BlockStore, logger: Logger): Promise<void> {
  const stored = store.latestHeight() ?? 0;
  for (let height = app.nextHeight(); height <= stored; height++) {
    const block = store.blockByHeight(height);
    if (!block) throw new NodeStartError(`stored block ${height} is missing; restore the node from a state-sync snapshot`);
    if (app.height() === 0) await app.initChain();
    const h = block.header;
    const result = await app.executeBlock({ height, timeMs: h.timeMs, proposer: h.proposer, baseFee: h.baseFee, gasLimit: h.gasLimit }, block.txs);
    const next = store.blockByHeight(height + 1);
    if (next && !Buffer.from(next.header.appHash).equals(Buffer.from(result.appHash))) {
      throw new NodeStartError(
        `replaying block ${height} gave app hash ${plainHex(result.appHash).toUpperCase()} but block ${height + 1} carries ` +
          `${plainHex(next.header.appHash).toUpperCase()} (wrong Block.Header.AppHash); compare state with \`stratadb dump-iavl\` and roll back further`,
      );
    }
    logger.info('replayed stored block', { height, appHash: plainHex(result.appHash) });
  }
}

/** Calls that may wait for an execution worker, per worker. */
const QUEUED_CALLS_PER_WORKER = 256;
/** Workers a pool may add while all of its own are busy (a few long calls must not hold up the rest). */
const BURST_WORKERS = 4;
/** Calls one call worker may hold at once: it runs the next as soon as it answers one. */
const CALL_PIPELINE = 4;
/**
 * The young generation (nursery) of each trace worker, MiB. V8 lets every isolate's nursery
 * grow to 48 MiB under a high allocation rate, and a pool pays that per worker; the trace pool
 * grows to several workers under long traces. At 32 MiB the callTracer keeps its rate (bench:node,
 * 1 worker: 145–181 tx/s, 144–166 with V8's default); at 12 MiB it dropped to 128. Call
 * workers keep V8's default: a smaller nursery cost eth_call on distinct holders about a fifth
 * of its rate (mean 1,720 req/s at 12 MiB, 1,617 at 24, 2,125 by default, same runs).
 */
const TRACE_NURSERY_MIB = 32;
/**
 * The young generation of workers beyond the base size, in both pools. They run only while the
 * base workers are held by long tasks (a looping call, a slow trace), and under such load a
 * pool keeps several: in bench:soak a call worker's heap was about 60 MiB at V8's default and
 * about 40 MiB at 12. A call or trace runs about a fifth slower there (see above), which fits
 * what they are for: keeping short requests moving, not adding speed.
 */
const BURST_NURSERY_MIB = 12;

/**
 * The execution workers app.toml asks for (`execution-workers` each for calls and for traces),
 * reading the home's SS and block store: one pool runs eth_call / eth_estimateGas, the other
 * debug_trace*, so a long trace never makes a call wait.
 */
function startExecutionWorkers(app: App, store: BlockStore, config: LoadedConfig, logger: Logger): { calls: WorkerPool; traces: WorkerPool } {
  const evm = config.app.evm;
  const workers = evm.executionWorkers > 0 ? evm.executionWorkers : Math.max(1, availableParallelism() - 1);
  const setup = { state: app.stateStoreShare(), blocks: store.share(), genesis: app.genesis, gasCap: app.gasCap, traceLimits: traceLimitsOf(evm) };
  return {
    calls: new WorkerPool(setup, {
      name: 'call',
      workers,
      maxWorkers: workers + BURST_WORKERS,
      maxQueued: workers * QUEUED_CALLS_PER_WORKER,
      pipeline: CALL_PIPELINE,
      burstYoungGenerationMiB: BURST_NURSERY_MIB,
      logger,
    }),
    traces: new WorkerPool(setup, {
      name: 'trace',
      workers,
      maxWorkers: Math.min(evm.maxConcurrentTraces, workers + BURST_WORKERS),
      maxQueued: evm.maxConcurrentTraces,
      youngGenerationMiB: TRACE_NURSERY_MIB,
      burstYoungGenerationMiB: BURST_NURSERY_MIB,
      logger,
    }),
  };
}

/** The listeners `config` asks for (ports `override` replaces; 0 is chosen at bind time). */
function portClaims(config: LoadedConfig, override: Partial<BoundPorts>): PortClaim[] {
  const { evm } = config.app;
  const { rpc, instrumentation } = config.node;
  const claims: PortClaim[] = [];
  if (evm.httpEnabled) claims.push({ host: evm.httpAddress, port: override.http ?? evm.httpPort, setting: '[evm] http-port in app.toml' });
  if (evm.wsEnabled) claims.push({ host: evm.httpAddress, port: override.ws ?? evm.wsPort, setting: '[evm] ws-port in app.toml' });
  claims.push({ host: rpc.laddr.host, port: override.consensus ?? rpc.laddr.port, setting: '[rpc] laddr in config.toml' });
  const p2p = config.node.p2p.laddr;
  claims.push({ host: p2p.host || '0.0.0.0', port: override.p2p ?? p2p.port, setting: '[p2p] laddr in config.toml' });
  if (instrumentation.prometheus) {
    const metrics = instrumentation.prometheusListenAddr;
    claims.push({ host: metrics.host || '127.0.0.1', port: override.metrics ?? metrics.port, setting: '[instrumentation] prometheus_listen_addr in config.toml' });
  }
  return claims;
}

/**
 * Brings the state and the block store together after a crash inside block production, from
 * the proposal log: a state one block ahead is rolled back when the log proves that block
 * (the producer then builds, signs and stores exactly it again); a state ahead without that
 * proof is refused as before. A node that does not sign needs no proof: it only ever executes
 * blocks its peers signed, so a state one block ahead is rolled back and block sync fetches
 * that block again. Returns the proposal the producer resumes with, if any.
 */
async function reconcileWithBlockStore(
  app: App,
  store: BlockStore,
  paths: HomePaths,
  logger: Logger,
  node: { signs: boolean },
): Promise<ResumedProposal | undefined> {
  const file = proposalPath(paths.data);
  let proposal: Proposal | undefined;
  try {
    proposal = loadProposal(file);
  } catch (error) {
    if (error instanceof ProposalFileError) throw new NodeStartError(error.message);
    throw error;
  }
  const stored = store.latestHeight() ?? 0;
  if (proposal && proposal.height <= stored) {
    // Its block reached the block store; only the removal was lost.
    removeProposal(file);
    proposal = undefined;
  }
  const height = app.height();
  if (!node.signs && !proposal && height === stored + 1 && stored >= app.earliestHeight()) {
    const appHash = await app.rollback(stored);
    logger.warn('the state held a block the block store does not; rolled it back to apply it again from peers', { height, appHash: plainHex(appHash) });
    return undefined;
  }
  if (height > stored) {
    if (height !== stored + 1 || proposal?.height !== height) {
      throw new NodeStartError(
        `the state is at height ${height} but the block store at ${stored}; run \`stratad rollback --home ${paths.home}\` ` +
          'to bring the state back to the stored chain',
      );
    }
    if (height === app.genesis.initial_height) {
      logger.warn('the state held the first block, which the block store does not; producing it again from the proposal log', { height });
      return { proposal, executed: true };
    }
    const appHash = await app.rollback(stored);
    logger.warn('the state held a block the block store does not; rolled it back to produce it again from the proposal log', {
      height,
      appHash: plainHex(appHash),
      txs: proposal.txs.length,
    });
  } else if (proposal) {
    logger.info('found a proposal that was not executed before the node stopped; it is produced first', { height: proposal.height, txs: proposal.txs.length });
  }
  return proposal && { proposal, executed: false };
}

/** The `[log] file` of config.toml, rotated by size; undefined when it is not set. */
function openLogFile(home: string, settings: LoadedConfig['node']['log']): RotatingFile | undefined {
  if (!settings.file) return undefined;
  return new RotatingFile({
    path: isAbsolute(settings.file) ? settings.file : join(home, settings.file),
    maxBytes: settings.maxFileSizeMb * 1024 * 1024,
    keep: settings.maxFiles,
  });
}

/** One running node. */
export class StrataNode {
  readonly #closers: Array<() => Promise<void>> = [];
  #stopping: Promise<void> | undefined;

  private constructor(
    readonly paths: HomePaths,
    readonly app: App,
    readonly store: BlockStore,
    readonly mempool: Mempool,
    readonly ports: BoundPorts,
    readonly producer: BlockProducer | undefined,
    readonly logger: Logger,
    /** Resolves with the failure that halted block production; the node is then stopping. */
    readonly halted: Promise<Error>,
    /** Writes `data/crash-reports/<time>.json` (the start command calls it on an uncaught failure). */
    readonly crashReports: CrashReporter,
    private readonly logFile: RotatingFile | undefined,
  ) {}

  /** Starts the node of `home`; `portOverride` replaces the configured ports (tests). */
  static async start(home: string, options: { logger?: Logger; portOverride?: Partial<BoundPorts> } = {}): Promise<StrataNode> {
    const paths = homePaths(home);
    if (!existsSync(paths.genesis)) {
      throw new NodeStartError(`${paths.genesis} does not exist; run \`stratad init --chain-id <id> <moniker> --home ${paths.home}\` first`);
    }
    const config = await loadConfig(paths.home);
    // Every line also goes to the ring a crash report carries and, when configured, to the log file.
    const ring = new LogRing();
    let logFile: RotatingFile | undefined;
    const logger = (options.logger ?? new Logger({ level: config.node.logLevel, format: config.node.logFormat })).tee((line) => {
      ring.push(line);
      logFile?.write(line);
    });
    for (const warning of config.warnings) logger.warn(warning.message);
    // Whatever can refuse the start is checked before a store is opened: a refused start
    // changes nothing on disk.
    if (homeHeldByAnotherProcess(paths.data)) throw new NodeStartError(homeHeldMessage(paths.data));
    const genesisRecorded = checkGenesis(paths.genesis, paths.data);
    const validatorKey = loadHomeValidatorKey(paths);
    const nodeKeyFile = existsSync(paths.nodeKey) ? loadNodeKey(paths.nodeKey) : undefined;
    const override = options.portOverride ?? {};
    const busy = await firstBusyPort(portClaims(config, override));
    if (busy) {
      const { claim, reason } = busy;
      throw new NodeStartError(`cannot listen on ${claim.host}:${claim.port} (${claim.setting}): ${reason}; stop the process that uses it, or configure another port`);
    }
    // Opened only now: a refused start changes nothing on disk. The lines so far come from the ring.
    logFile = openLogFile(paths.home, config.node.log);
    if (logFile) for (const line of ring.snapshot().lines) logFile.write(line);
    // One RocksDB cache and memtable limit for every store of this node (`[storage]`).
    const memoryBudget = memoryBudgetOf(config);
    let app: App;
    try {
      // An empty home with [statesync] enable = true restores a snapshot from its peers first.
      await stateSyncAtStart({ paths, config, nodeKey: nodeKeyFile, logger, ...(override.p2p !== undefined ? { port: override.p2p } : {}) });
      app = await openHomeApp(paths, config, logger, { memoryBudget });
    } catch (error) {
      logFile?.close();
      throw error;
    }
    const genesis: Genesis = app.genesis;
    const closers: Array<() => Promise<void>> = [() => app.close()];
    try {
      // InitChain: the genesis state is staged (and readable) before block 1 commits it.
      if (app.height() === 0) await app.initChain();
      const store = await BlockStore.open(paths.data, { memoryBudget });
      closers.unshift(() => store.close());
      app.useBlockHashes((height) => store.hashAt(height));
      const workers = startExecutionWorkers(app, store, config, logger);
      const evmTimeout = config.app.evm.rpcEvmTimeout;
      app.useCallExecutor(new WorkerCallExecutor(workers.calls, evmTimeout.toMilliseconds(), evmTimeout.toString()));
      closers.unshift(async () => {
        app.useCallExecutor(undefined);
        await Promise.all([workers.calls.close(), workers.traces.close()]);
      });
      // Serve only once the workers can take calls: a call must not spend its timeout waiting for one to load.
      await Promise.all([workers.calls.ready(), workers.traces.ready()]);
      const isValidator =
        validatorKey !== undefined &&
        genesis.validators.some((v) => v.address.replace(/^0x/, '').toLowerCase() === validatorKey.address.toLowerCase());
      const stored = store.latestHeight() ?? 0;
      const resume = await reconcileWithBlockStore(app, store, paths, logger, { signs: isValidator });
      await replayStoredBlocks(app, store, logger);
      const chain = new ChainProvider(app, store);
      const admissionBaseFee = importedNextBaseFee(chain.blocks) ?? BigInt(genesis.params.min_base_fee);
      const mp = config.node.mempool;
      const mempool = new Mempool({
        size: mp.size,
        ttlDurationMs: mp.ttlDuration.toMilliseconds(),
        ttlNumBlocks: mp.ttlNumBlocks,
        keepInvalidTxsInCache: mp.keepInvalidTxsInCache,
        maxTxBytes: mp.maxTxBytes,
        maxTxsPerSender: mp.maxTxsPerSender,
        height: stored,
        check: (raw): CheckResult => {
          const started = performance.now();
          const recoveredBefore = recoveryClock.seconds;
          const result = admit(raw);
          const recover = recoveryClock.seconds - recoveredBefore;
          nodeMetrics.observeAdmission(recover, (performance.now() - started) / 1000 - recover);
          return result;
        },
        accountNonce: (sender) => chain.state.nonce(Buffer.from(sender.slice(2), 'hex'), 'latest'),
      });
      /** The app's and the pool's checks of one transaction offered to the mempool. */
      function admit(raw: Uint8Array): CheckResult {
        const verdict = app.validateTx(raw, admissionBaseFee);
        if (!verdict.ok) return { ok: false, reason: verdict.error.message };
        const tx = verdict.tx;
        // A gap in a sender's nonces is refused rather than queued: an RPC client gets the
        // error at once instead of a transaction that never lands.
        const sender = bytesHex(tx.sender);
        const next = mempool.pendingNonce(sender);
        if (tx.nonce > next) return { ok: false, reason: `nonce too high: next nonce ${next}, tx nonce ${tx.nonce}` };
        const tipCap = tx.maxFeePerGas - admissionBaseFee;
        return {
          ok: true,
          accountNonce: tx.accountNonce,
          tx: {
            sender,
            nonce: tx.nonce,
            gasLimit: tx.gasLimit,
            fee: tx.maxPriorityFeePerGas < tipCap ? tx.maxPriorityFeePerGas : tipCap,
          },
        };
      }

      const eth = new NodeEthBackend(app, chain, mempool);
      const rpc = createEthMethods(eth, {
        maxLogBlockRange: config.app.evm.maxLogBlockRange,
        maxFilters: config.app.evm.maxFilters,
        filterTimeoutMs: config.app.evm.filterTimeout.toMilliseconds(),
        version: VERSION,
        logger,
      });
      closers.unshift(async () => rpc.filters.close());
      const debug = new WorkerDebugBackend(workers.traces, app, chain, store, traceLimitsOf(config.app.evm));
      const methods = { ...rpc.methods, ...createDebugMethods(debug) };
      // The gauges read the consensus backend, which exists by the time anything scrapes.
      const nodeMetrics = new NodeMetrics({
        height: () => app.height(),
        lag: () => lagStatus(consensusBackend).lag,
        peers: () => consensusBackend.peers().length,
        mempoolSize: () => mempool.size,
        mempoolCapacity: mp.size,
        pools: workers,
        dataDir: paths.data,
        storageMemory: () => memoryBudget.usage(),
        commitTreeMemory: () => app.commitTreeMemory(),
        callCacheBytes: () => app.callCacheBytes(),
        logCacheBytes: () => store.logCacheBytes(),
        decodedBlockBytes: () => store.decodedBlockBytes(),
        cacheCapacities: { call_results: app.callCacheCapacity(), logs: store.logCacheCapacity(), decoded_blocks: store.decodedBlockCapacity() },
        nativeHeap: mallocUsage,
        nativeHeapArenas: mallocArenas,
      });
      const stageTimes = new BlockStageTimes(nodeMetrics);
      app.observeBlockStages((stage, seconds) => stageTimes.record(stage, seconds));
      const dispatcher = new Dispatcher(methods, {
        maxBatchSize: config.app.evm.maxBatchSize,
        maxInFlight: config.app.evm.maxConcurrentRequests,
        maxResponseBytes: config.app.evm.maxResponseBytes,
        logger,
        mapError: rpcErrorOf,
        observe: (method, seconds, ok) => nodeMetrics.observeRpc(method, seconds, ok),
      });
      const transportOptions = { logger, maxBodyBytes: config.app.evm.maxBodyBytes };
      const listen = async (transport: HttpTransport, host: string, port: number): Promise<number> => {
        const bound = await transport.listen(host, port);
        closers.unshift(() => transport.close());
        return bound;
      };
      const evm = config.app.evm;
      const http = createHttpTransport(transportOptions);
      serveJsonRpc(http, dispatcher, { http: '/', ws: false, logger });
      const ws = createHttpTransport(transportOptions);
      serveJsonRpc(ws, dispatcher, { http: '/', ws: '/', logger });

      const validatorAddress = validatorKey ? Buffer.from(validatorKey.address, 'hex') : undefined;
      const consensus = createHttpTransport({ logger });
      const rpcAddr = config.node.rpc.laddr;
      const consensusBackend = new NodeConsensusBackend(
        app,
        store,
        {
          id: nodeKeyFile ? nodeKeyFile.id : '',
          listenAddr: `tcp://${config.node.p2p.laddr.host}:${config.node.p2p.laddr.port}`,
          network: genesis.chain_id,
          version: VERSION,
          moniker: config.node.moniker,
          rpcAddress: `tcp://${rpcAddr.host}:${rpcAddr.port}`,
        },
        isValidator && validatorKey && validatorAddress ? { address: validatorAddress, pubKey: validatorKey.publicKey, votingPower: 10n } : null,
      );
      registerConsensusRoutes(consensus, consensusBackend, { lagThreshold: config.node.rpc.lagThreshold });
      const crashReports = new CrashReporter(paths.data, ring, () => {
        const sync = consensusBackend.syncInfo();
        return {
          moniker: config.node.moniker,
          nodeId: nodeKeyFile?.id ?? '',
          chainId: genesis.chain_id,
          validator: isValidator,
          latestBlockHeight: sync.latestBlockHeight,
          latestBlockHash: plainHex(sync.latestBlockHash).toUpperCase(),
          latestAppHash: plainHex(sync.latestAppHash).toUpperCase(),
          catchingUp: sync.catchingUp,
          halted: sync.halted ?? null,
          peers: consensusBackend.peers().length,
          lag: lagStatus(consensusBackend).lag,
          mempoolSize: mempool.size,
        };
      });
      const crashAt = testCrashHeight();
      const afterBlockForTest = (height: number): void => {
        if (crashAt === undefined || height < crashAt) return;
        setImmediate(() => {
          throw new TestCrashError(height);
        });
      };
      const metrics = createHttpTransport({ logger });
      registerMetricsRoute(metrics, () => nodeMetrics.scrape());

      const ports: BoundPorts = {
        http: evm.httpEnabled ? await listen(http, evm.httpAddress, override.http ?? evm.httpPort) : 0,
        ws: evm.wsEnabled ? await listen(ws, evm.httpAddress, override.ws ?? evm.wsPort) : 0,
        consensus: await listen(consensus, rpcAddr.host, override.consensus ?? rpcAddr.port),
        metrics: config.node.instrumentation.prometheus
          ? await listen(metrics, config.node.instrumentation.prometheusListenAddr.host || '127.0.0.1', override.metrics ?? config.node.instrumentation.prometheusListenAddr.port)
          : 0,
        p2p: 0,
      };
      const snapshots = startSnapshotScheduler(app, store, paths.data, config.app.stateSync, logger);
      closers.unshift(() => snapshots.close());
      const heapTrimmer = new NativeHeapTrimmer(NATIVE_HEAP_TRIM_MS, (bytes) => nodeMetrics.observeNativeHeapTrim(bytes));
      closers.unshift(() => heapTrimmer.stop());
      // The peer layer: block serving, and block sync on every node that is not the validator.
      const network = nodeKeyFile
        ? await NodeNetwork.start({
            config,
            app,
            store,
            mempool,
            nodeKey: nodeKeyFile,
            isValidator,
            logger,
            port: override.p2p,
            proposalPath: proposalPath(paths.data),
            snapshotsDir: snapshotsDir(paths.data),
            onApplied: (block) => {
              eth.publishBlock(block.header.height);
              snapshots.afterBlock(block.header.height);
              afterBlockForTest(block.header.height);
            },
            onHalt: (error) => void crashReports.record('block sync halted', error, logger),
          })
        : undefined;
      if (network) {
        closers.unshift(() => network.stop());
        consensusBackend.useNetwork(network);
        ports.p2p = network.port;
      }

      let halt: (error: Error) => void = () => undefined;
      const halted = new Promise<Error>((resolve) => (halt = resolve));
      let producer: BlockProducer | undefined;
      if (isValidator && validatorAddress) {
        producer = new BlockProducer({
          app,
          store,
          mempool,
          signer: BlockSigner.open(paths.validatorKey, paths.signState),
          proposer: validatorAddress,
          logger,
          onBlock: (block) => {
            eth.publishBlock(block.header.height);
            snapshots.afterBlock(block.header.height);
            network?.announce(block.header.height);
            afterBlockForTest(block.header.height);
          },
          proposalPath: proposalPath(paths.data),
          stageTimes,
          resume,
          onHalt: halt,
        });
        producer.start(config.node.consensus.timeoutCommit.toMilliseconds());
      }
      if (!genesisRecorded) recordGenesis(paths.genesis, paths.data);
      const node = new StrataNode(paths, app, store, mempool, ports, producer, logger, halted, crashReports, logFile);
      node.#closers.push(...closers);
      // A validator that cannot produce must not keep serving a chain that stopped: its state
      // may hold a block its store does not, and only a restart reconciles them.
      void halted.then((error) => {
        logger.error('stopping the node: block production failed', { error: error.message });
        crashReports.record('block production halted', error, logger);
        return node.stop();
      });
      logger.info('node started', {
        home: paths.home,
        chainId: genesis.chain_id,
        height: app.height(),
        validator: isValidator,
        evmHttp: ports.http,
        evmWs: ports.ws,
        rpc: ports.consensus,
      });
      return node;
    } catch (error) {
      for (const close of closers) await close().catch(() => undefined);
      logFile?.close();
      throw error;
    }
  }

  /** Stops block production, the servers and the stores. Idempotent. */
  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      await this.producer?.stop();
      for (const close of this.#closers) {
        try {
          await close();
        } catch (error) {
          this.logger.error('shutdown step failed', { error: error instanceof Error ? error.message : String(error) });
        }
      }
      this.logger.info('node stopped');
      this.logFile?.close();
    })();
    return this.#stopping;
  }
}
