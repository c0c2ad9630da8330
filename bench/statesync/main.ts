/**
 * `npm run bench:statesync [-- --quick] [--json] [--accounts N] [--contracts N] [--slots N]`
 *
 * A generated state — N accounts (a `bank` balance in memiavl, a nonce in FlatKV) and
 * contracts with code and storage slots — committed to an SC, then, in one run:
 * - snapshotWriteMBps: writing a snapshot of it (SC export, 10 MB chunks, sha256, fsync), by
 *   stream bytes;
 * - stateSyncImportMBps: restoring it into an empty home — chunks verified, SC (memiavl +
 *   FlatKV) and SS built, app hash checked — split off and split on;
 * - stateSyncSeconds: from an empty home until its stores are open and answer a read (the
 *   restore plus opening the SC and SS, which is what a node does before it listens); the peer
 *   download that state sync adds is not part of it;
 * - stateSyncPeerSeconds: the same with the chunks downloaded from a peer over
 *   `/strata/snapshots/1` (two peer hosts on 127.0.0.1 in this process: libp2p, noise, yamux,
 *   each chunk hash-checked on arrival), split off;
 * - diskSeqWriteMBps: a plain sequential write of 1 MiB blocks, fsynced, of the snapshot's size
 *   (at least 256 MiB) on the same disk, in the same run.
 * Goal: the import at 50 % of the disk's sequential write speed or more.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { nodeKey } from '../../src/chain/keys.js';
import { Logger } from '../../src/log/logger.js';
import { PeerHost } from '../../src/p2p/index.js';
import { PeerChunkSource, serveSnapshots } from '../../src/sync/index.js';
import {
  CommitStore,
  CompositeStateStore,
  DEFAULT_STATE_STORE_CONFIG,
  DirectoryChunkSource,
  restoreSnapshot,
  writeSnapshot,
  type ChunkSource,
  type NamedChangeset,
  type SnapshotManifest,
} from '../../src/store/index.js';
import { emitReport, rate, table } from '../report.js';
import { address, amount, balanceKey, nonce, nonceKey } from '../commit/workload.js';

interface Size {
  accounts: number;
  contracts: number;
  slots: number;
}

const FULL: Size = { accounts: 1_000_000, contracts: 1_000, slots: 100 };
const QUICK: Size = { accounts: 100_000, contracts: 100, slots: 100 };
const ACCOUNTS_PER_BLOCK = 100_000;
const GOAL_RATIO = 0.5;

function contractAddress(n: number): Buffer {
  const a = address(n);
  a.writeUInt32BE(0xc0de0000, 4);
  return a;
}

/** Commits the generated state in blocks of ACCOUNTS_PER_BLOCK accounts, then the contracts. */
async function buildState(sc: CommitStore, size: Size): Promise<void> {
  for (let start = 0; start < size.accounts; start += ACCOUNTS_PER_BLOCK) {
    const bank: NamedChangeset['pairs'][number][] = [];
    const evm: NamedChangeset['pairs'][number][] = [];
    for (let n = start; n < Math.min(size.accounts, start + ACCOUNTS_PER_BLOCK); n++) {
      const a = address(n);
      bank.push({ key: balanceKey(a), value: amount(1_000_000n + BigInt(n)) });
      evm.push({ key: nonceKey(a), value: nonce(1 + (n % 7)) });
    }
    sc.applyChangesets([{ name: 'bank', pairs: bank }, { name: 'evm', pairs: evm }]);
    await sc.commit();
  }
  const evm: NamedChangeset['pairs'][number][] = [];
  for (let c = 0; c < size.contracts; c++) {
    const a = contractAddress(c);
    const code = Buffer.alloc(2_000 + (c % 13) * 100, c & 0xff);
    evm.push({ key: Buffer.concat([Buffer.of(0x07), a]), value: code });
    evm.push({ key: Buffer.concat([Buffer.of(0x08), a]), value: Buffer.alloc(32, (c % 250) + 1) });
    evm.push({ key: nonceKey(a), value: nonce(1) });
    for (let s = 0; s < size.slots; s++) {
      const slot = Buffer.alloc(32);
      slot.writeUInt32BE(s, 28);
      evm.push({ key: Buffer.concat([Buffer.of(0x03), a, slot]), value: amount(BigInt(c * 1_000 + s + 1)) });
    }
  }
  sc.applyChangesets([{ name: 'evm', pairs: evm }]);
  await sc.commit();
}

async function diskSeqWrite(dir: string, bytes: number): Promise<number> {
  const block = Buffer.alloc(1 << 20, 0x5a);
  const path = join(dir, 'seq-write');
  const started = performance.now();
  const file = await open(path, 'w');
  try {
    for (let written = 0; written < bytes; written += block.length) await file.write(block);
    await file.sync();
  } finally {
    await file.close();
  }
  const seconds = (performance.now() - started) / 1000;
  rmSync(path, { force: true });
  return bytes / 1e6 / seconds;
}

/** Restores `manifest` into `target` from `source` and opens the stores until they answer a read; seconds and import MB/s. */
async function restoreAndServe(target: string, manifest: SnapshotManifest, source: ChunkSource, split: boolean, logger: Logger): Promise<{ importSeconds: number; seconds: number; answered: boolean }> {
  const ss = { ...DEFAULT_STATE_STORE_CONFIG, evmSsSplit: split };
  const started = performance.now();
  await restoreSnapshot({ dataDir: target, manifest, source, commit: {}, ss });
  const importSeconds = (performance.now() - started) / 1000;
  const restored = await CommitStore.open(target, {});
  const store = await CompositeStateStore.open(target, ss, logger);
  const answered = store.get('evm', manifest.height, nonceKey(address(0))) !== undefined;
  const seconds = (performance.now() - started) / 1000;
  await store.close();
  await restored.close();
  return { importSeconds, seconds, answered };
}

/** Two peer hosts on loopback, one serving `snapshotsRoot`; the other's chunk source for `manifest`. */
async function peerSource(snapshotsRoot: string, manifest: SnapshotManifest, logger: Logger): Promise<{ source: ChunkSource; stop: () => Promise<void> }> {
  const [a, b] = [nodeKey(), nodeKey()];
  const common = { listen: { host: '127.0.0.1', port: 0 }, maxMessageBytes: 102_400, logger };
  const server = await PeerHost.start({ ...common, seed: a.seed, persistentPeers: [] });
  await serveSnapshots(server, snapshotsRoot, logger);
  const client = await PeerHost.start({ ...common, seed: b.seed, persistentPeers: [{ nodeId: server.nodeId, host: '127.0.0.1', port: server.port }] });
  while (client.peers().length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
  return {
    source: new PeerChunkSource(client, manifest, new Set([server.nodeId]), logger),
    stop: async () => {
      await client.stop();
      await server.stop();
    },
  };
}

function positive(text: string | undefined, fallback: number, name: string): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 0 || n > 100_000_000) throw new Error(`--${name} must be an integer from 0 to 100000000, got "${text}"`);
  return n;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      accounts: { type: 'string' },
      contracts: { type: 'string' },
      slots: { type: 'string' },
    },
  });
  const base = values.quick ? QUICK : FULL;
  const size: Size = {
    accounts: positive(values.accounts, base.accounts, 'accounts'),
    contracts: positive(values.contracts, base.contracts, 'contracts'),
    slots: positive(values.slots, base.slots, 'slots'),
  };
  const log = (msg: string) => process.stderr.write(`${msg}\n`);
  const logger = new Logger({ level: 'error' });
  const work = mkdtempSync(join(tmpdir(), 'strata-bench-statesync-'));
  try {
    log(`bench:statesync · ${rate(size.accounts)} accounts · ${rate(size.contracts)} contracts × ${rate(size.slots)} slots`);
    const source = join(work, 'source');
    const sc = await CommitStore.open(source, { snapshotInterval: 0 });
    let started = performance.now();
    await buildState(sc, size);
    log(`· state committed in ${((performance.now() - started) / 1000).toFixed(1)} s`);

    started = performance.now();
    const snapshot = await writeSnapshot(sc, join(work, 'snapshots'));
    const writeSeconds = (performance.now() - started) / 1000;
    await sc.close();
    const streamBytes = snapshot.manifest.chunks.reduce((n, c) => n + c.bytes, 0);
    log(`· snapshot: ${(streamBytes / 1e6).toFixed(1)} MB in ${snapshot.manifest.chunks.length} chunks, ${writeSeconds.toFixed(1)} s`);

    const runs: Array<{ split: boolean; importMBps: number; seconds: number }> = [];
    const check = (answered: boolean): void => {
      if (size.accounts > 0 && !answered) throw new Error('the restored state store does not answer a read of account 0');
    };
    for (const split of [false, true]) {
      const target = join(work, split ? 'split' : 'plain');
      const run = await restoreAndServe(target, snapshot.manifest, new DirectoryChunkSource(snapshot.dir), split, logger);
      check(run.answered);
      runs.push({ split, importMBps: streamBytes / 1e6 / run.importSeconds, seconds: run.seconds });
      log(`· restore split=${split}: ${run.importSeconds.toFixed(1)} s, serving after ${run.seconds.toFixed(1)} s`);
      rmSync(target, { recursive: true, force: true });
    }
    const peers = await peerSource(join(work, 'snapshots'), snapshot.manifest, logger);
    let peerRun: Awaited<ReturnType<typeof restoreAndServe>>;
    try {
      peerRun = await restoreAndServe(join(work, 'peer'), snapshot.manifest, peers.source, false, logger);
    } finally {
      await peers.stop();
    }
    check(peerRun.answered);
    log(`· state sync from a peer: ${peerRun.importSeconds.toFixed(1)} s, serving after ${peerRun.seconds.toFixed(1)} s`);
    rmSync(join(work, 'peer'), { recursive: true, force: true });
    const diskMBps = await diskSeqWrite(work, Math.max(256 << 20, streamBytes));
    const snapshotWriteMBps = streamBytes / 1e6 / writeSeconds;
    const [plain, split] = runs as [(typeof runs)[0], (typeof runs)[0]];
    const text = [
      table([
        ['figure', 'split off', 'split on'],
        ['snapshot write MB/s', snapshotWriteMBps.toFixed(1), ''],
        ['state-sync import MB/s', plain.importMBps.toFixed(1), split.importMBps.toFixed(1)],
        ['empty home to serving s', plain.seconds.toFixed(1), split.seconds.toFixed(1)],
        ['same, chunks from a peer s', peerRun.seconds.toFixed(1), ''],
        ['disk sequential write MB/s', diskMBps.toFixed(1), ''],
        ['import / disk write', `${((plain.importMBps / diskMBps) * 100).toFixed(0)} %`, `${((split.importMBps / diskMBps) * 100).toFixed(0)} %`],
      ]),
      `goal: import at >= ${GOAL_RATIO * 100} % of the disk's sequential write speed`,
    ].join('\n');
    emitReport(
      text,
      {
        accounts: size.accounts,
        contracts: size.contracts,
        slotsPerContract: size.slots,
        snapshotBytes: streamBytes,
        snapshotWriteMBps,
        stateSyncImportMBps: plain.importMBps,
        stateSyncImportMBpsSplit: split.importMBps,
        stateSyncSeconds: plain.seconds,
        stateSyncSecondsSplit: split.seconds,
        stateSyncPeerSeconds: peerRun.seconds,
        diskSeqWriteMBps: diskMBps,
      },
      values.json,
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
