/**
 * The spec's operator error table, row by row: each message is produced, word for word, by the
 * situation it describes, on real `stratad` processes and real homes, together with the remedy
 * the table gives. The app-hash mismatch line names expected and actual hash, block id and
 * height. A refused start changes nothing on disk.
 */
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { createPublicClient, createWalletClient, http, parseEther, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { devAccounts } from '../../src/chain/genesis-file.js';
import { freePort } from '../../bench/node/node-process.js';
import { initHome, startNode, stratad, type TestHome } from '../node/fixtures/node-process.js';
import { chainOf, rpcResult } from '../node/fixtures/rpc-client.js';
import { filesOf, runTo } from '../node/fixtures/stopped-home.js';
import { followerHome, validatorHome, waitUntil } from '../sync/fixtures/network.js';

/** The output line holding `message`; fails the test when there is none. */
function lineWith(t: Test, output: string, message: string): string {
  const line = output.split('\n').find((l) => l.includes(message));
  t.ok(line, `"${message}" is produced`);
  return line ?? '';
}

/** Flips the last payload byte of the memiavl changelog entry of `version`. */
function damageCommitmentChangelog(home: TestHome, version: number): void {
  const dir = join(home.home, 'data', 'committer.db', 'changelog');
  const segment = join(dir, readdirSync(dir).filter((n) => /^\d{20}$/.test(n)).sort()[0]!);
  const data = readFileSync(segment);
  for (let pos = 0; pos + 16 <= data.length; pos += 8 + data.readUInt32LE(pos)) {
    if (Number(data.readBigUInt64LE(pos + 8)) !== version) continue;
    data[pos + 8 + data.readUInt32LE(pos) - 1]! ^= 0x01;
    writeFileSync(segment, data);
    return;
  }
  throw new Error(`no changelog entry of version ${version} in ${segment}`);
}

// The table as the spec gives it: message, and the remedy the node must say with it.
const TABLE = {
  halted: { message: 'Consensus failure - height halted', remedy: 'check for upgrades or halts with `stratad status`' },
  keyFile: { message: 'Private validator file not found', remedy: 'restore the key file from your backup or fix its permissions' },
  duplicate: { message: 'Duplicate signature', remedy: 'stop the node immediately: this is possible double signing; check that no other machine runs with this validator key' },
  dial: { message: 'connect: connection refused', remedy: 'check connectivity and the firewall' },
  noPeers: { message: 'No peers available', remedy: 'check the peers with /net_info' },
  corrupted: { message: 'Database is corrupted', remedy: 'reset the database (`stratad tendermint unsafe-reset-all`, then state sync) or restore it from a backup' },
  locked: {
    message: 'failed to initialize database: resource temporarily unavailable',
    remedy: 'kill the node process (reboot if needed), then repeat the rollback',
  },
} as const;

t.test(`${TABLE.keyFile.message}: a validator home without its key file stops, naming the path, and changes nothing`, async (t) => {
  const home = await initHome(t);
  await runTo(t, home, 2);
  const keyFile = join(home.home, 'config', 'priv_validator_key.json');
  const key = readFileSync(keyFile);
  rmSync(keyFile);
  const before = filesOf(home.home);
  const start = stratad(['start', '--home', home.home]);
  t.equal(start.status, 1, 'the start is refused');
  const line = lineWith(t, start.stderr, `${TABLE.keyFile.message}: ${keyFile}`);
  t.match(line, TABLE.keyFile.remedy);
  t.same(filesOf(home.home), before, 'nothing on disk changed');
  writeFileSync(keyFile, key, { mode: 0o600 });
  await runTo(t, home, 4);
  t.pass('with the key restored the validator signs again');
});

t.test(`${TABLE.duplicate.message} and ${TABLE.halted.message}: a validator asked to sign a second block at a signed height`, async (t) => {
  const home = await initHome(t, 150);
  await runTo(t, home, 5);
  // --hard drops the top block; the validator's signing state still holds its signature.
  const hard = stratad(['rollback', '--hard', '--home', home.home]);
  t.equal(hard.status, 0, hard.stderr);
  const node = await startNode(t, home).catch((error: Error) => ({ output: () => error.message, ended: Promise.resolve({ code: 1, signal: null }) }));
  const ended = await node.ended;
  t.equal(ended.code, 1, 'the node stops with 1');
  const output = node.output();
  t.match(lineWith(t, output, TABLE.duplicate.message), TABLE.duplicate.remedy);
  t.match(lineWith(t, output, TABLE.halted.message), TABLE.halted.remedy);
  t.match(output, /Consensus failure - height halted: block production failed: Duplicate signature/, 'the exit names both');
});

t.test(`${TABLE.dial.message} and ${TABLE.noPeers.message}: a follower whose persistent peer refuses connections`, async (t) => {
  const validator = await validatorHome(t);
  const closed = await freePort();
  const follower = await followerHome(t, validator, { persistentPeers: `${validator.nodeId}@127.0.0.1:${closed}` });
  const node = await startNode(t, follower);
  await waitUntil('No peers available', () => node.output().includes(TABLE.noPeers.message), 60_000);
  t.match(lineWith(t, node.output(), `dial tcp 127.0.0.1:${closed}: ${TABLE.dial.message}`), TABLE.dial.remedy);
  t.match(lineWith(t, node.output(), TABLE.noPeers.message), TABLE.noPeers.remedy);
  t.equal(await node.stop(), 0);
});

t.test(`${TABLE.corrupted.message}: a damaged state-commitment changelog`, async (t) => {
  const home = await initHome(t, 150);
  await runTo(t, home, 6);
  damageCommitmentChangelog(home, 3);
  const start = stratad(['start', '--home', home.home]);
  t.equal(start.status, 1);
  const line = lineWith(t, start.stderr, `${TABLE.corrupted.message}: `);
  t.match(line, TABLE.corrupted.remedy);
  t.match(line, /stratad rollback --to-intact/, 'after the specific remedy the cause names');
});

t.test(`${TABLE.locked.message}: a second process on a running node's home`, async (t) => {
  const home = await initHome(t, 200);
  const node = await startNode(t, home);
  const rollback = stratad(['rollback', '--home', home.home]);
  t.equal(rollback.status, 1);
  t.match(rollback.stderr, TABLE.locked.message);
  t.match(rollback.stderr, TABLE.locked.remedy);
  const second = stratad(['start', '--home', home.home]);
  t.equal(second.status, 1);
  t.match(second.stderr, TABLE.locked.message);
  t.equal(await node.stop(), 0);
});

t.test(`App-hash mismatch and ${TABLE.halted.message}: a follower whose state diverged`, async (t) => {
  const validator = await validatorHome(t, 200);
  await startNode(t, validator);
  const chain = chainOf(validator.http, validator.ws);
  const client = createPublicClient({ chain, transport: http(), pollingInterval: 50 });
  const wallet = createWalletClient({ account: privateKeyToAccount(devAccounts(1)[0]!.privateKey as Hex), chain, transport: http() });
  const hash = await wallet.sendTransaction({ to: '0x00000000000000000000000000000000000bad02', value: parseEther('1') });
  const perturbed = Number((await client.waitForTransactionReceipt({ hash, pollingInterval: 50 })).blockNumber);
  const follower = await followerHome(t, validator);
  const node = await startNode(t, follower, { env: { STRATA_TEST_PERTURB_BALANCE_AT: String(perturbed) } });
  await waitUntil('the halt', () => node.output().includes(TABLE.halted.message));
  const header = (await rpcResult(validator.http, 'eth_getBlockByNumber', [`0x${(perturbed + 1).toString(16)}`, false])) as { hash: string; stateRoot: string };
  const line = lineWith(t, node.output(), 'wrong Block.Header.AppHash');
  const [expected, actual] = /Expected ([0-9A-F]{64}), got ([0-9A-F]{64})/.exec(line)?.slice(1) ?? [];
  t.ok(expected && actual && expected !== actual, 'expected and actual hash');
  t.equal(actual, header.stateRoot.slice(2).toUpperCase(), "the actual hash is the chain's header");
  t.match(line, `block ${perturbed + 1}`, 'the height');
  t.match(line, header.hash.slice(2).toUpperCase(), 'the block id');
  t.match(line, 'run `stratad rollback`', 'the remedy');
  const halted = lineWith(t, node.output(), TABLE.halted.message);
  t.match(halted, TABLE.halted.remedy);
  t.match(halted, String(perturbed + 1));
  t.equal(await node.stop(), 0);
  t.ok(existsSync(join(follower.home, 'data')));
});
