/**
 * End-to-end transfer throughput: pre-signed EIP-1559 ETH transfers submitted with
 * eth_sendRawTransaction over keep-alive raw-socket connections, timed from the first submission until
 * the blocks holding them all have been seen. Inclusion is followed cheaply: eth_blockNumber
 * is polled and each new block's transaction count is added up, so the poll costs the server
 * two small calls per block rather than one call per sender.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import createKeccakHash from 'keccak';
import { sendEach } from '../rpc/load.js';
import { RpcClient } from './rpc-client.js';
import { hex, signEip1559 } from './sign.js';

/** A funded sender. */
export interface Sender {
  /** 0x-prefixed 32-byte private key. */
  privateKey: string;
}

/** The transfer fee terms: a tip of 1 gwei under a 100 gwei cap, 1e12 wei to a fresh address. */
const TRANSFER = { gasLimit: 21_000n, maxFeePerGas: 100_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n, value: 1_000_000_000_000n };

/** A fresh recipient per transfer, so every transfer grows the state as real traffic does. */
function recipient(label: string, index: number): Uint8Array {
  return createKeccakHash('keccak256').update(`${label}/${index}`).digest().subarray(12);
}

/**
 * `perSender` transfers from each sender (nonces 0…perSender − 1), as 0x raw txs ordered
 * round-robin by nonce: every sender's nonce 0, then every sender's nonce 1, and so on.
 */
export function signTransfers(senders: readonly Sender[], perSender: number, chainId: number, label: string): string[] {
  const keys = senders.map((s) => Buffer.from(s.privateKey.slice(2), 'hex'));
  const out: string[] = [];
  for (let nonce = 0; nonce < perSender; nonce++) {
    for (const key of keys) {
      const to = recipient(label, out.length);
      out.push(hex(signEip1559({ chainId: BigInt(chainId), nonce: BigInt(nonce), ...TRANSFER, to, data: new Uint8Array() }, key)));
    }
  }
  return out;
}

/** One eth_sendRawTransaction JSON-RPC body per raw transaction, ids in order. */
export function sendRawTransactionBodies(raws: readonly string[]): string[] {
  return raws.map((raw, i) => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'eth_sendRawTransaction', params: [raw] }));
}

/** What one transfer run measured. */
export interface TransferRun {
  txs: number;
  /** Transfers per second from the first submission to the inclusion of the last. */
  tps: number;
  /** Transfers per second the server accepted (submission only). */
  submitTps: number;
  /** Submission latency percentiles. */
  submitP50Ms: number;
  submitP99Ms: number;
  /** Seconds from the first submission to the last inclusion. */
  seconds: number;
  /** Blocks that carried the transfers. */
  blocks: number;
  /** Submissions the server refused. */
  rejected: number;
}

/** Thrown when the transfers are not all included in time. */
export class InclusionTimeoutError extends Error {
  constructor(included: number, expected: number, timeoutMs: number, firstRejection: string) {
    super(`only ${included} of ${expected} transfers were included after ${timeoutMs} ms${firstRejection ? `; first rejection: ${firstRejection}` : ''}`);
    this.name = 'InclusionTimeoutError';
  }
}

const POLL_MS = 5;

/** Follows new blocks and resolves with the time the `expected`-th transaction was seen included. */
async function followInclusion(poller: RpcClient, fromBlock: number, expected: number, deadline: number): Promise<{ at: number; blocks: number; included: number }> {
  let seen = fromBlock;
  let included = 0;
  let blocks = 0;
  while (performance.now() < deadline) {
    const latest = Number(await poller.call<string>('eth_blockNumber'));
    for (let h = seen + 1; h <= latest; h++) {
      const count = Number(await poller.call<string>('eth_getBlockTransactionCountByNumber', [`0x${h.toString(16)}`]));
      if (count > 0) blocks++;
      included += count;
    }
    seen = latest;
    if (included >= expected) return { at: performance.now(), blocks, included };
    await sleep(POLL_MS);
  }
  return { at: Number.NaN, blocks, included };
}

/**
 * Submits `raws` over `connections` keep-alive connections (the raw-socket generator, so the
 * client's own cost stays small beside the server's) and waits until all are included.
 */
export async function runTransfers(port: number, raws: readonly string[], connections: number, timeoutMs: number): Promise<TransferRun> {
  const poller = new RpcClient(port, 1);
  try {
    const fromBlock = Number(await poller.call<string>('eth_blockNumber'));
    const started = performance.now();
    const deadline = started + timeoutMs;
    const inclusion = followInclusion(poller, fromBlock, raws.length, deadline);
    const submission = await sendEach({ port, bodies: sendRawTransactionBodies(raws), connections, timeoutMs });
    const done = await inclusion;
    if (Number.isNaN(done.at)) throw new InclusionTimeoutError(done.included, raws.length, timeoutMs, submission.firstError);
    const seconds = (done.at - started) / 1000;
    return {
      txs: raws.length,
      tps: raws.length / seconds,
      submitTps: raws.length / submission.seconds,
      submitP50Ms: submission.p50Ms,
      submitP99Ms: submission.p99Ms,
      seconds,
      blocks: done.blocks,
      rejected: submission.errors,
    };
  } finally {
    poller.close();
  }
}
