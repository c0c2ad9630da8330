/**
 * The read side of the state machine on an execution worker: every committed height from the
 * node's SS (borrowed, read directly), with the chain's own rules. It never writes and never
 * sees the SC, so its latest height is the newest one the SS has applied.
 */
import type { Common } from '@ethereumjs/common';

import type { BlockContext } from '../evm/block-context.js';
import type { BlockHashLookup } from '../evm/block-hashes.js';
import { createChainCommon } from '../evm/common.js';
import type { StateView } from '../evm/state-manager.js';
import type { SharedStateReader } from '../store/index.js';
import type { AppReader } from './app-reader.js';
import { ownExecutionContext, type ExecutionContext } from './execution-context.js';
import { genesisChangesets, type Genesis } from './genesis.js';

/** The genesis state as a view: before block 1 commits it, it is in no store a worker can read. */
function genesisView(genesis: Genesis): StateView {
  const values = new Map<string, Uint8Array>();
  const id = (store: string, key: Uint8Array) => `${store}/${Buffer.from(key).toString('hex')}`;
  for (const { name, pairs } of genesisChangesets(genesis)) {
    for (const { key, value } of pairs) if (value !== null) values.set(id(name, key), value);
  }
  return { get: (store, key) => values.get(id(store, key)) };
}

/** AppReader over a borrowed SS. */
export class ReplicaApp implements AppReader {
  readonly common: Common;
  #genesis: StateView | undefined;

  constructor(
    readonly genesis: Genesis,
    private readonly state: SharedStateReader,
    readonly gasCap: bigint,
    private readonly blockHashes: BlockHashLookup,
  ) {
    this.common = createChainCommon(genesis.evm_chain_id);
  }

  height(): number {
    return Number(this.state.latestVersion());
  }

  earliestHeight(): number {
    return Math.max(Number(this.state.earliestVersion()), this.genesis.initial_height);
  }

  storedHeight(): number {
    return this.height();
  }

  /** Not known without the SC; only the header of block 0 before block 1 exists asks for it, and nothing here serves that. */
  appHash(): Uint8Array {
    return new Uint8Array();
  }

  latestView(): StateView {
    return this.storedView(this.height());
  }

  /** The SS state at `height`; at 0, before any block, the genesis state. */
  storedView(height: number): StateView {
    if (height === 0) return (this.#genesis ??= genesisView(this.genesis));
    const state = this.state;
    return { get: (store, key) => state.get(store, height, key) };
  }

  ownExecutionContext(header: BlockContext, blockHash: Uint8Array): ExecutionContext {
    return ownExecutionContext(this.common, header, blockHash, this.blockHashes);
  }
}
