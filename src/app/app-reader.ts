/**
 * The read side of the state machine: what views of state at a height and block replays for
 * tracing need. App implements it on the node's main thread over the SC and SS; ReplicaApp
 * implements it on an execution worker over the SS alone.
 */
import type { BlockContext } from '../evm/block-context.js';
import type { StateView } from '../evm/state-manager.js';
import type { ExecutionContext } from './execution-context.js';
import type { Genesis } from './genesis.js';

/** Reads of committed state, by height. */
export interface AppReader {
  readonly genesis: Genesis;
  /** The RPC gas cap of calls (0 = none), which debug_traceCall also runs under. */
  readonly gasCap: bigint;
  /** The last committed height (0 before the first block). */
  height(): number;
  /** The oldest height whose state is retained (at least the initial height). */
  earliestHeight(): number;
  /** The newest height the SS has applied. */
  storedHeight(): number;
  /** The app hash after the last committed block (empty where it is not known). */
  appHash(): Uint8Array;
  /** The latest committed state. */
  latestView(): StateView;
  /** The SS state at `height`, unchecked. */
  storedView(height: number): StateView;
  /** The execution context of a block this chain produced. */
  ownExecutionContext(header: BlockContext, blockHash: Uint8Array): ExecutionContext;
}
