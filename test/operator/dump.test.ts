/**
 * The dump tools cover the EVM side: `stratadb dump-iavl` and `stratad debug dump-iavl` write
 * FlatKV's rows under `evm_lattice`, headed by the `evm_lattice` hash, beside memiavl's
 * modules, so two nodes' dumps diff store by store (a copy of a home dumps identically, file
 * by file); `stratad debug dump-db` dumps every SS DB,
 * Cosmos and EVM, filters by store, and with --errors-only prints only the DBs it cannot read.
 */
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import t from 'tap';
import { devAccounts } from '../../src/chain/genesis-file.js';
import { ROOT, startNode, stratad } from '../node/fixtures/node-process.js';
import { LAYOUTS, blockNumber, homeWithLayout, parseDumpDb, transfers } from './fixtures.js';

const STRATADB = join(ROOT, 'src', 'cli', 'stratadb.ts');
const RECIPIENT = '0x00000000000000000000000000000000000d0d0d' as const;

function stratadb(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', STRATADB, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The files of a dump directory with their contents. */
function filesOf(dir: string): Map<string, string> {
  return new Map(readdirSync(dir).sort().map((f) => [f, readFileSync(join(dir, f), 'utf8')]));
}

t.test('dump-iavl includes FlatKV and the evm_lattice hash; dumps of two nodes diff store by store', async (t) => {
  const home = await homeWithLayout(t, LAYOUTS[1]!);
  const node = await startNode(t, home);
  await transfers(home, RECIPIENT, 2);
  while ((await blockNumber(home)) < 6) await new Promise((r) => setTimeout(r, 100));
  t.equal(await node.stop(), 0);

  const out = mkdtempSync(join(tmpdir(), 'strata-dump-'));
  t.teardown(() => rmSync(out, { recursive: true, force: true }));
  const a = join(out, 'a');
  const dumped = stratadb(['dump-iavl', '-d', join(home.home, 'data', 'committer.db'), '-o', a]);
  t.equal(dumped.status, 0, dumped.stderr);
  t.match(dumped.stdout, /Tree bank has version \d+ and root hash: [0-9A-F]{64}/);
  t.match(dumped.stdout, /Tree evm_lattice has version \d+ and root hash: [0-9A-F]{64} \(\d+ rows\)/);
  const lattice = readFileSync(join(a, 'evm_lattice'), 'utf8').split('\n');
  t.match(lattice[0], /^Tree evm_lattice has version \d+ and root hash: [0-9A-F]{64}$/);
  const sender = devAccounts(1)[0]!.address.slice(2).toUpperCase();
  const senderRow = lattice.find((l) => l.startsWith(`Key: ${Buffer.from('evm/').toString('hex').toUpperCase()}0A${sender}`));
  t.ok(senderRow, "the sender's FlatKV account row (its nonce) is dumped");

  // A second node with the same state dumps identically; the same node's `debug dump-iavl` too.
  const copy = mkdtempSync(join(tmpdir(), 'strata-copy-'));
  t.teardown(() => rmSync(copy, { recursive: true, force: true }));
  cpSync(home.home, copy, { recursive: true });
  const b = join(out, 'b');
  const viaNode = stratad(['debug', 'dump-iavl', '0', '--home', copy, '-o', b]);
  t.equal(viaNode.status, 0, viaNode.stderr);
  t.same(filesOf(b), filesOf(a), 'identical dumps, file by file');

  const past = stratadb(['dump-iavl', '-d', join(home.home, 'data', 'committer.db'), '-o', join(out, 'c'), '--height', '2']);
  t.equal(past.status, 0, past.stderr);
  t.match(past.stdout, /Tree evm_lattice is not dumped: FlatKV keeps only its latest version \(\d+\), not 2/);
});

t.test('debug dump-db dumps the Cosmos and EVM SS, filters, and reports unreadable DBs', async (t) => {
  const home = await homeWithLayout(t, LAYOUTS[1]!);
  const node = await startNode(t, home);
  const heights = await transfers(home, RECIPIENT, 1);
  t.equal(await node.stop(), 0);

  const all = stratad(['debug', 'dump-db', '--home', home.home]);
  t.equal(all.status, 0, all.stderr);
  const dbs = parseDumpDb(all.stdout);
  t.equal(dbs.length, 6, 'rocksdb/ and evm_ss/{nonce,codehash,code,storage,legacy}');
  t.ok(dbs[0]!.entries.some((e) => e.store === 'bank'), 'the Cosmos SS holds bank');
  t.notOk(dbs[0]!.entries.some((e) => e.store === 'evm'), 'and no evm keys (split)');
  const nonceDb = dbs.find((db) => db.dir.endsWith(join('evm_ss', 'nonce')))!;
  t.ok(nonceDb.entries.some((e) => e.version === heights[0]), 'the EVM SS holds the sender nonce at the transfer height');

  const evmOnly = stratad(['debug', 'dump-db', '--filter', 'evm', '--home', home.home]);
  const filtered = parseDumpDb(evmOnly.stdout);
  t.ok(filtered.every((db) => db.entries.every((e) => e.store === 'evm')));
  t.ok(filtered.some((db) => db.entries.length > 0));

  const clean = stratad(['debug', 'dump-db', '--errors-only', '--home', home.home]);
  t.equal(clean.status, 0, clean.stderr);
  t.equal(clean.stdout, '', 'no errors, nothing printed');

  // Damage one EVM sub-DB's table files: that DB is reported, the others still dumped.
  const storage = join(home.home, 'data', 'evm_ss', 'storage');
  for (const file of readdirSync(storage).filter((f) => f.startsWith('MANIFEST-'))) writeFileSync(join(storage, file), 'garbage');
  const broken = stratad(['debug', 'dump-db', '--errors-only', '--home', home.home]);
  t.equal(broken.status, 1);
  t.match(broken.stdout, new RegExp(`^ERROR ${storage.replace(/[/.]/g, '\\$&')}: `));
  t.equal(broken.stdout.trim().split('\n').length, 1, 'only the damaged DB');
});
