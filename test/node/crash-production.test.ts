/**
 * kill -9 inside block production, on real `stratad` validators under a stream of transfers.
 *
 * For each step (the proposal synced, the block committed to the SC but not yet to the SS, the
 * block committed to the state, the header signed, the block stored) the validator SIGKILLs itself right after that step of one height (the
 * STRATA_TEST_CRASH_AT hook of node/producer.ts). The test reads the home as the kill left it
 * (block store, sign state, proposal log), restarts the node without the hook and checks that
 * it starts with no manual command, produces exactly the block it had proposed or signed at
 * that height (the signed hash, or the stored one, is the hash served after the restart), keeps
 * every transaction a stored block held, never reports a double sign, and goes on producing.
 *
 * Then random-moment kills of one validator under load (seeded; replay with
 * STRATA_NODE_CRASH_SEED=<seed>, STRATA_NODE_CRASH_KILLS=<n> rounds), each followed by a
 * restart that must come up producing with every stored transaction in place; and a write
 * fault (the data directory made immutable while the node runs) that must stop the node with
 * exit code 1 and the reason, after which a restart carries on.
 */
import t, { type Test } from 'tap';
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { keccak256, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { BlockStore } from '../../src/chain/block-store.js';
import { devAccounts } from '../../src/chain/genesis-file.js';
import { loadSignState, type SignState } from '../../src/chain/keys.js';
import { loadProposal, proposalPath, type Proposal } from '../../src/chain/proposal.js';
import { PRODUCTION_STEPS } from '../../src/node/producer.js';
import { Prng, seedFromEnv } from '../helpers/prng.js';
import { initHome, startNode, stratad, type RunningNode, type TestHome } from './fixtures/node-process.js';

const BLOCK_MS = 250;
const CRASH_HEIGHT = 8;
const KILLS = Number(process.env.STRATA_NODE_CRASH_KILLS ?? 4);
const RECIPIENT = '0x00000000000000000000000000000000c0ffee02' as const;
const account = privateKeyToAccount(devAccounts(1)[0]!.privateKey as Hex);

/**
 * One JSON-RPC call. A connection refused or closed is retried twice: the client's pool may
 * still hold a keep-alive socket to the killed process on the same port, or the server may
 * close an idle one just as it is reused.
 */
async function rpc<T>(port: number, method: string, params: unknown[] = []): Promise<T> {
  let r: Response | undefined;
  for (let attempt = 0; !r; attempt++) {
    try {
      r = await fetch(`http://127.0.0.1:${port}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
    } catch (error) {
      if (attempt === 2) throw error;
      await sleep(50);
    }
  }
  const json = (await r.json()) as { result?: T; error?: { message: string } };
  if (json.error) throw new Error(`${method}: ${json.error.message}`);
  return json.result as T;
}

const blockNumber = async (port: number): Promise<number> => Number(await rpc<string>(port, 'eth_blockNumber'));

async function waitForHeight(port: number, height: number, timeoutMs = 20_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const current = await blockNumber(port);
    if (current >= height) return current;
    if (Date.now() > deadline) throw new Error(`no block ${height} within ${timeoutMs} ms (at ${current})`);
    await sleep(100);
  }
}

/**
 * Transfers sent one after another with explicit nonces until the node stops answering; `acked`
 * holds every transaction whose eth_sendRawTransaction returned a hash.
 */
class Load {
  readonly acked: Hex[] = [];
  #stopped = false;
  #done: Promise<void> = Promise.resolve();

  constructor(private readonly port: number) {}

  start(): void {
    this.#done = (async () => {
      let nonce = Number(await rpc<string>(this.port, 'eth_getTransactionCount', [account.address, 'latest']));
      while (!this.#stopped) {
        const raw = await account.signTransaction({
          chainId: 713715,
          type: 'eip1559',
          to: RECIPIENT,
          value: 1n,
          gas: 21_000n,
          maxFeePerGas: 10n ** 10n,
          maxPriorityFeePerGas: 10n ** 9n,
          nonce,
        });
        try {
          this.acked.push(await rpc<Hex>(this.port, 'eth_sendRawTransaction', [raw]));
          nonce++;
        } catch {
          return; // the node is gone
        }
        await sleep(40);
      }
    })();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#done;
  }
}

/** What a killed node left on disk. */
interface Remains {
  storedHeight: number;
  hashes: Map<number, string>;
  /** Acknowledged transactions a stored block holds, with that block's height. */
  included: Map<Hex, number>;
  signState: SignState;
  proposal: Proposal | undefined;
}

async function remainsOf(home: TestHome, acked: readonly Hex[]): Promise<Remains> {
  const data = join(home.home, 'data');
  const store = await BlockStore.open(data);
  try {
    const storedHeight = store.latestHeight() ?? 0;
    const hashes = new Map<number, string>();
    for (let h = 1; h <= storedHeight; h++) hashes.set(h, `0x${store.hashAt(h)!.toString('hex')}`);
    const included = new Map<Hex, number>();
    for (const hash of acked) {
      const location = store.txByHash(Buffer.from(hash.slice(2), 'hex'));
      if (location) included.set(hash, location.height);
    }
    return { storedHeight, hashes, included, signState: loadSignState(join(data, 'priv_validator_state.json')), proposal: loadProposal(proposalPath(data)) };
  } finally {
    await store.close();
  }
}

/** The restarted node serves every stored block under its old hash and every stored transaction in its old block. */
async function checkNothingLost(t: Test, port: number, remains: Remains): Promise<void> {
  for (const [height, hash] of remains.hashes) {
    const block = await rpc<{ hash: string }>(port, 'eth_getBlockByNumber', [`0x${height.toString(16)}`, false]);
    if (block.hash !== hash) t.fail(`block ${height} changed across the restart: ${hash} → ${block.hash}`);
  }
  let kept = 0;
  for (const [hash, height] of remains.included) {
    const receipt = await rpc<{ blockNumber: string } | null>(port, 'eth_getTransactionReceipt', [hash]);
    if (receipt && Number(receipt.blockNumber) === height) kept++;
    else t.fail(`transaction ${hash} of stored block ${height} was lost`);
  }
  t.equal(kept, remains.included.size, `all ${remains.included.size} stored transactions are still there`);
}

/** A transfer sent after the restart lands in a new block. */
async function checkStillTakesTransactions(t: Test, port: number): Promise<void> {
  const nonce = Number(await rpc<string>(port, 'eth_getTransactionCount', [account.address, 'pending']));
  const raw = await account.signTransaction({ chainId: 713715, type: 'eip1559', to: RECIPIENT, value: 7n, gas: 21_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 9n, nonce });
  const hash = await rpc<Hex>(port, 'eth_sendRawTransaction', [raw]);
  for (let i = 0; i < 100; i++) {
    const receipt = await rpc<{ status: string } | null>(port, 'eth_getTransactionReceipt', [hash]);
    if (receipt) {
      t.equal(receipt.status, '0x1', 'a new transfer is included after the restart');
      return;
    }
    await sleep(100);
  }
  t.fail('a transfer sent after the restart was not included');
}

function checkNoDoubleSign(t: Test, node: RunningNode): void {
  t.notMatch(node.output(), /Duplicate signature|double sign|Consensus failure - height halted/, 'no double-sign refusal, production never halted');
}

for (const step of PRODUCTION_STEPS) {
  t.test(`kill -9 ${step} of block ${CRASH_HEIGHT}: the restart finishes that very block and carries on`, async (t) => {
    const home = await initHome(t, BLOCK_MS);
    const crashing = await startNode(t, home, { env: { STRATA_TEST_CRASH_AT: `${step}@${CRASH_HEIGHT}` } });
    const load = new Load(home.http);
    load.start();
    const ended = await Promise.race([crashing.ended, sleep(30_000, undefined, { ref: false }).then(() => undefined)]);
    await load.stop();
    t.same(ended, { code: null, signal: 'SIGKILL' }, 'the node killed itself at the hook');

    const remains = await remainsOf(home, load.acked);
    const stored = step === 'after-store' ? CRASH_HEIGHT : CRASH_HEIGHT - 1;
    t.equal(remains.storedHeight, stored, `the block store stopped at ${stored}`);
    const signed = step === 'after-sign' || step === 'after-store' ? CRASH_HEIGHT : CRASH_HEIGHT - 1;
    t.equal(remains.signState.height, signed, `the sign state stopped at ${signed}`);
    t.equal(remains.proposal?.height, CRASH_HEIGHT, 'the proposal of the crash height is on disk');
    t.ok(remains.proposal!.txs.length > 0, 'and it holds transfers');
    t.ok(load.acked.length > 0, `${load.acked.length} transfers acknowledged before the kill`);

    const node = await startNode(t, home);
    await waitForHeight(home.http, CRASH_HEIGHT + 3);
    const block = await rpc<{ hash: string; transactions: string[]; timestamp: string }>(home.http, 'eth_getBlockByNumber', [`0x${CRASH_HEIGHT.toString(16)}`, false]);
    t.same(block.transactions, remains.proposal!.txs.map((raw) => keccak256(raw)), 'block at the crash height holds exactly the proposed transactions');
    t.equal(Number(block.timestamp), Math.floor(remains.proposal!.timeMs / 1000), 'with the proposed time');
    if (signed === CRASH_HEIGHT) {
      t.equal(block.hash, `0x${remains.signState.signBytes!.toString('hex')}`, 'and it is the block signed before the kill');
    }
    if (step === 'after-commit' || step === 'after-sign') {
      t.match(node.output(), /rolled it back to produce it again from the proposal log/, 'the restart reconciled state and block store');
    }
    await checkNothingLost(t, home.http, remains);
    await checkStillTakesTransactions(t, home.http);
    checkNoDoubleSign(t, node);
    t.equal(await node.stop(), 0, 'a clean shutdown after the restart');
  });
}

for (const step of ['after-commit', 'after-sign'] as const) {
  t.test(`kill -9 ${step} of the first block, whose state cannot be rolled back: the restart stores it as it was`, async (t) => {
    const home = await initHome(t, BLOCK_MS);
    const crashing = await startNode(t, home, { env: { STRATA_TEST_CRASH_AT: `${step}@1` } });
    t.same(await crashing.ended, { code: null, signal: 'SIGKILL' });
    const remains = await remainsOf(home, []);
    t.equal(remains.storedHeight, 0, 'nothing stored');
    const node = await startNode(t, home);
    await waitForHeight(home.http, 3);
    t.match(node.output(), /the state held the first block, which the block store does not/);
    const block = await rpc<{ hash: string; timestamp: string }>(home.http, 'eth_getBlockByNumber', ['0x1', false]);
    t.equal(Number(block.timestamp), Math.floor(remains.proposal!.timeMs / 1000), 'block 1 has the proposed time');
    if (step === 'after-sign') t.equal(block.hash, `0x${remains.signState.signBytes!.toString('hex')}`, 'block 1 is the block signed before the kill');
    await checkStillTakesTransactions(t, home.http);
    checkNoDoubleSign(t, node);
    t.equal(await node.stop(), 0);
  });
}

t.test('kill -9 between the SC commit and the SS apply of the first block: the restart empties the SC and produces block 1 again', async (t) => {
  const home = await initHome(t, BLOCK_MS);
  const crashing = await startNode(t, home, { env: { STRATA_TEST_CRASH_AT: 'after-sc-commit@1' } });
  t.same(await crashing.ended, { code: null, signal: 'SIGKILL' }, 'the node killed itself at the hook');
  const remains = await remainsOf(home, []);
  t.equal(remains.storedHeight, 0, 'nothing stored');
  t.equal(remains.signState.height, 0, 'nothing signed');
  t.equal(remains.proposal?.height, 1, 'the proposal of block 1 is on disk');
  const node = await startNode(t, home);
  await waitForHeight(home.http, 3);
  t.match(node.output(), /the state store did not hold the first block the state commitment held: emptied the commitment/);
  const block = await rpc<{ timestamp: string }>(home.http, 'eth_getBlockByNumber', ['0x1', false]);
  t.equal(Number(block.timestamp), Math.floor(remains.proposal!.timeMs / 1000), 'block 1 is the proposed one');
  // Historical reads at block 1 come from the SS, which now holds the genesis state there.
  const funded = devAccounts(1)[0]!.address;
  t.not(await rpc<string>(home.http, 'eth_getBalance', [funded, '0x1']), '0x0', 'the genesis balance is in the state store at block 1');
  await checkStillTakesTransactions(t, home.http);
  checkNoDoubleSign(t, node);
  t.equal(await node.stop(), 0);
});

t.test('a state ahead of the block store that no proposal proves is still refused, with the remedy', async (t) => {
  const home = await initHome(t, BLOCK_MS);
  const crashing = await startNode(t, home, { env: { STRATA_TEST_CRASH_AT: `after-commit@${CRASH_HEIGHT}` } });
  await crashing.ended;
  rmSync(proposalPath(join(home.home, 'data')));
  const refused = await startNode(t, home).then(
    () => undefined,
    (error: Error) => error.message,
  );
  t.match(refused, new RegExp(`the state is at height ${CRASH_HEIGHT} but the block store at ${CRASH_HEIGHT - 1}; run \\\`stratad rollback --home `));
  t.equal(stratad(['rollback', '--home', home.home]).status, 0, 'stratad rollback brings the state back');
  const node = await startNode(t, home);
  await waitForHeight(home.http, CRASH_HEIGHT + 2);
  checkNoDoubleSign(t, node);
  t.equal(await node.stop(), 0);
});

t.test('random kill -9 of a producing validator under load: every restart comes up producing', async (t) => {
  const prng = new Prng(seedFromEnv('STRATA_NODE_CRASH_SEED'));
  t.comment(`seed ${prng.seed} (replay with STRATA_NODE_CRASH_SEED=${prng.seed})`);
  const home = await initHome(t, BLOCK_MS);
  let node = await startNode(t, home);
  for (let round = 0; round < KILLS; round++) {
    const load = new Load(home.http);
    load.start();
    await sleep(prng.range(300, 2_500));
    node.child.kill('SIGKILL');
    await node.ended;
    await load.stop();
    const remains = await remainsOf(home, load.acked);
    node = await startNode(t, home);
    await waitForHeight(home.http, remains.storedHeight + 2);
    await checkNothingLost(t, home.http, remains);
    checkNoDoubleSign(t, node);
  }
  await checkStillTakesTransactions(t, home.http);
  t.equal(await node.stop(), 0);
});

/**
 * Makes `dir` refuse new entries, even to root: the immutable attribute where the file system
 * has it, else a directory where the proposal log's temporary file must go.
 */
function breakWrites(dir: string): () => void {
  if (spawnSync('chattr', ['+i', dir]).status === 0) return () => void spawnSync('chattr', ['-i', dir]);
  const blocker = join(dir, 'proposal.json.tmp');
  mkdirSync(blocker);
  return () => rmSync(blocker, { recursive: true, force: true });
}

t.test('a write fault in block production stops the node with the reason and exit code 1', async (t) => {
  const home = await initHome(t, BLOCK_MS);
  const node = await startNode(t, home);
  await waitForHeight(home.http, 3);
  const repair = breakWrites(join(home.home, 'data'));
  t.teardown(repair);
  const ended = await Promise.race([node.ended, sleep(15_000, undefined, { ref: false }).then(() => undefined)]);
  t.same(ended, { code: 1, signal: null }, 'the process exits with 1');
  const output = node.output();
  t.match(output, /Consensus failure - height halted/);
  t.match(output, /fix the cause/, 'the log names the remedy');
  t.match(output, /stopping the node: block production failed/);
  t.match(output, /node stopped/, 'servers and stores were shut down');
  t.match(output, /block production failed: .*(EPERM|EISDIR|not permitted|directory)/i, 'stderr says why');
  await t.rejects(blockNumber(home.http), 'the RPC is down');

  repair();
  const stored = (await remainsOf(home, [])).storedHeight;
  const again = await startNode(t, home);
  await waitForHeight(home.http, stored + 2);
  checkNoDoubleSign(t, again);
  t.equal(await again.stop(), 0);
});
