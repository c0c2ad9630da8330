/**
 * Operator-tool tests: homes with a chosen state-store layout, value transfers that change the
 * state block after block, and the lines of `stratad debug dump-db`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Test } from 'tap';
import { createPublicClient, createWalletClient, http, parseEther, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { devAccounts } from '../../src/chain/genesis-file.js';
import { loadConfig, renderAppToml } from '../../src/config/index.js';
import type { Backend } from '../../src/store/index.js';
import { initHome, type TestHome } from '../node/fixtures/node-process.js';
import { chainOf, rpcResult } from '../node/fixtures/rpc-client.js';

/** A state-store layout under test. */
export interface Layout {
  name: string;
  backend: Backend;
  split: boolean;
  separateDbs: boolean;
}

/** The layouts every SS-touching command must handle: one SS, and the split into five EVM DBs. */
export const LAYOUTS: readonly Layout[] = [
  { name: 'pebbledb, one state store', backend: 'pebbledb', split: false, separateDbs: false },
  { name: 'rocksdb, EVM SS split into five DBs', backend: 'rocksdb', split: true, separateDbs: true },
];

/** A fresh home (blocks every `blockMs`) whose app.toml selects `layout`. */
export async function homeWithLayout(t: Test, layout: Layout, blockMs = 200): Promise<TestHome> {
  const home = await initHome(t, blockMs);
  const config = await loadConfig(home.home);
  const stateStore = { ...config.app.stateStore, backend: layout.backend, evmSsSplit: layout.split, evmSsSeparateDbs: layout.separateDbs };
  writeFileSync(join(home.home, 'config', 'app.toml'), renderAppToml({ ...config.app, stateStore }));
  return home;
}

/** Sends `count` transfers to `recipient`, one per block; returns the heights they landed at. */
export async function transfers(home: TestHome, recipient: Hex, count: number): Promise<number[]> {
  const chain = chainOf(home.http, home.ws);
  const client = createPublicClient({ chain, transport: http(), pollingInterval: 50 });
  const wallet = createWalletClient({ account: privateKeyToAccount(devAccounts(1)[0]!.privateKey as Hex), chain, transport: http() });
  const heights: number[] = [];
  for (let i = 0; i < count; i++) {
    const hash = await wallet.sendTransaction({ to: recipient, value: parseEther('1') + BigInt(i) });
    heights.push(Number((await client.waitForTransactionReceipt({ hash, pollingInterval: 50 })).blockNumber));
  }
  return heights;
}

/** The node's latest height over its EVM RPC. */
export async function blockNumber(home: TestHome): Promise<number> {
  return Number(await rpcResult(home.http, 'eth_blockNumber'));
}

/** The `stateRoot` (the app hash after the block before it) of block `height`, upper hex. */
export async function stateRootOf(home: TestHome, height: number): Promise<string> {
  const block = (await rpcResult(home.http, 'eth_getBlockByNumber', [`0x${height.toString(16)}`, false])) as { stateRoot: string };
  return block.stateRoot.slice(2).toUpperCase();
}

/** One section of `stratad debug dump-db`: a DB's directory, markers and entries. */
export interface DumpedDb {
  dir: string;
  latest: number;
  entries: Array<{ store: string; key: string; version: number; value: string }>;
}

/** Parses `stratad debug dump-db` output into its per-DB sections. */
export function parseDumpDb(text: string): DumpedDb[] {
  const dbs: DumpedDb[] = [];
  for (const line of text.split('\n')) {
    const head = /^# (\S+) latest (\d+) earliest (\d+)$/.exec(line);
    if (head) {
      dbs.push({ dir: head[1]!, latest: Number(head[2]), entries: [] });
      continue;
    }
    const entry = /^(\S+) ([0-9a-f]*) (\d+) ([0-9a-f]*)$/.exec(line);
    if (entry) dbs.at(-1)!.entries.push({ store: entry[1]!, key: entry[2]!, version: Number(entry[3]), value: entry[4]! });
  }
  return dbs;
}
