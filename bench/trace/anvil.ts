/**
 * Anvil as a tracing peer, with the node's hardfork (Prague), chain id and block gas limit, and
 * either instant mining or mining on demand (`evm_mine`), so that a batch of transactions can
 * land in one block. With `--steps-tracing` Anvil records every step while mining: its struct
 * logger needs that (without it, `structLogs` comes back empty), while its callTracer and
 * JavaScript tracers are fastest without it (they replay the transaction instead).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { launchAnvil } from '../node/anvil-process.js';
import type { RunningProcess } from '../node/node-process.js';
import { RpcClient } from '../node/rpc-client.js';

/** How the tracing Anvil runs. */
export interface TracingAnvilOptions {
  chainId: number;
  gasLimit: number;
  /** `auto`: a block per transaction; `manual`: blocks only on `evm_mine`. */
  mining: 'auto' | 'manual';
  /** Start with `--steps-tracing` (default true): the struct logger's mode. */
  stepsTracing?: boolean;
}

/** Starts Anvil (with step tracing unless told not to) and waits until it answers JSON-RPC; its request log is dropped. */
export function startTracingAnvil(options: TracingAnvilOptions): Promise<RunningProcess> {
  const args = ['--chain-id', String(options.chainId), '--gas-limit', String(options.gasLimit), '--hardfork', 'prague'];
  if (options.stepsTracing ?? true) args.push('--steps-tracing');
  if (options.mining === 'manual') args.push('--no-mining');
  return launchAnvil(args);
}

/** Gives `addresses` `balanceWei` each on Anvil (the node funds the same accounts at genesis). */
export async function fundOnAnvil(port: number, addresses: readonly string[], balanceWei: bigint): Promise<void> {
  const client = new RpcClient(port, 4);
  try {
    await Promise.all(addresses.map((a) => client.call('anvil_setBalance', [a, `0x${balanceWei.toString(16)}`])));
  } finally {
    client.close();
  }
}

/** Thrown when the node does not produce the block the coinbase is read from. */
export class NoBlockError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NoBlockError';
  }
}

/**
 * Makes Anvil's coinbase the node's block proposer. The coinbase is warm from the start of
 * every transaction (EIP-3651), so a different coinbase changes the gas of any access to
 * either address, e.g. a call to address 0 (Anvil's default coinbase).
 */
export async function alignAnvilCoinbase(nodePort: number, anvilPort: number, timeoutMs = 30_000): Promise<string> {
  const node = new RpcClient(nodePort, 1);
  const anvil = new RpcClient(anvilPort, 1);
  try {
    // Block 0 is the genesis stand-in with a zero miner; block 1 names the proposer.
    const deadline = Date.now() + timeoutMs;
    let block: { miner: string } | null = null;
    while (block === null) {
      block = await node.call<{ miner: string } | null>('eth_getBlockByNumber', ['0x1', false]);
      if (block !== null) break;
      if (Date.now() > deadline) throw new NoBlockError(`the node produced no block 1 within ${timeoutMs} ms`);
      await sleep(50);
    }
    await anvil.call('anvil_setCoinbase', [block.miner]);
    return block.miner;
  } finally {
    node.close();
    anvil.close();
  }
}
