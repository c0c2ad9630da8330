/**
 * The soak's steady mixed load: an open-loop schedule (each kind at its own rate, from a 10 ms
 * tick) of signed transfers, reads, calls, traces and hostile requests against one node. A
 * request that falls due while its kind already has its most requests in flight, or (for
 * transactions) while every sender is waiting on its previous submission, is skipped and
 * counted, so a stalled node is not buried under an ever-growing queue and the figures say how
 * much of the schedule was actually sent.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import createKeccakHash from 'keccak';
import { balanceOfData } from '../node/reads.js';
import { RpcClient } from '../node/rpc-client.js';
import { hex, signEip1559 } from '../node/sign.js';
import { HOSTILE_KINDS, hostileBody, judgeHostile, type HostileKind, type RpcLimits } from './hostile.js';
import type { BlockWatcher } from './blocks.js';

/** The request kinds with expected success. */
export const NORMAL_KINDS = ['transfer', 'tokenTransfer', 'eth_getBalance', 'eth_getBlockByNumber', 'eth_getLogs', 'eth_call', 'debug_traceTransaction'] as const;
export type NormalKind = (typeof NORMAL_KINDS)[number];
export type Kind = NormalKind | HostileKind;

/** Requests per second of each kind, and the most of it in flight at once. */
export interface KindPlan {
  perSecond: number;
  maxInFlight: number;
}

/**
 * The default mix: 200 transactions/s (190 ETH transfers, 10 ERC-20 transfers), 94 reads,
 * calls and traces/s, and 6 hostile requests/s (one of each kind): 300 requests/s, 2% hostile.
 * Traces are capped at 4 + 2 in flight, under the node's `max-concurrent-traces` (8), so the
 * soak never provokes the node's own refusal of a ninth trace.
 */
export const DEFAULT_MIX: Record<Kind, KindPlan> = {
  transfer: { perSecond: 190, maxInFlight: 256 },
  tokenTransfer: { perSecond: 10, maxInFlight: 32 },
  eth_getBalance: { perSecond: 30, maxInFlight: 64 },
  eth_getBlockByNumber: { perSecond: 15, maxInFlight: 32 },
  eth_getLogs: { perSecond: 10, maxInFlight: 32 },
  eth_call: { perSecond: 30, maxInFlight: 64 },
  debug_traceTransaction: { perSecond: 9, maxInFlight: 4 },
  malformedJson: { perSecond: 1, maxInFlight: 4 },
  hugeBatch: { perSecond: 1, maxInFlight: 4 },
  feeHistory1000: { perSecond: 1, maxInFlight: 4 },
  oversizedBody: { perSecond: 1, maxInFlight: 2 },
  loopingCall: { perSecond: 1, maxInFlight: 2 },
  loopingJsTracer: { perSecond: 1, maxInFlight: 2 },
};

/** A funded account that submits transactions one at a time (a node refuses a nonce gap). */
export interface SoakSender {
  privateKey: string;
  address: string;
  /** Its next nonce. */
  nonce: bigint;
}

/** What the load needs to know about the chain. */
export interface LoadTarget {
  port: number;
  chainId: number;
  token: string;
  limits: RpcLimits;
  ethSenders: SoakSender[];
  /** Senders that hold Token balance. */
  tokenSenders: SoakSender[];
  watcher: BlockWatcher;
  /** Share of ETH transfers (0..1) that pay a new address; the rest pay one paid before. */
  newAccountShare: number;
}

/** Latencies and counts of one kind. */
export interface KindStats {
  sent: number;
  /** Fell due while the kind (or every sender) was busy. */
  skipped: number;
  /** Answers as expected. */
  ok: number;
  /** Unexpected outcomes. */
  errors: number;
  latenciesMs: number[];
}

/** An unexpected outcome. */
export interface SoakError {
  kind: Kind | 'inclusion' | 'blockWatcher' | 'node';
  category: 'transport' | 'nonJson' | 'http' | 'rpcError' | 'hostileAccepted' | 'notIncluded' | 'crash';
  message: string;
}

/** Everything the load recorded. */
export interface LoadLog {
  stats: Record<Kind, KindStats>;
  errors: SoakError[];
  /** Hash → submission time, of every accepted transaction. */
  txs: Map<string, number>;
}

/** A request that gets no answer in this long counts as a transport error. */
const REQUEST_TIMEOUT_MS = 30_000;
const TICK_MS = 10;
/** Fees as in bench:node's transfers; gas for a Token transfer with margin. */
const FEES = { maxFeePerGas: 100_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n };
const TOKEN_TRANSFER_GAS = 100_000n;
const TRANSFER_SELECTOR = 'a9059cbb';
/** Token recipients, and the holders `balanceOf` is asked about, are drawn from this many addresses. */
const HOLDERS = 50_000;

/** The i-th Token holder address. */
function holder(i: number): string {
  return `0x${(0xc0000000 + i).toString(16).padStart(40, '0')}`;
}

/** The n-th ETH recipient address. */
function recipient(n: number): Uint8Array {
  return createKeccakHash('keccak256').update(`soak/${n}`).digest().subarray(12);
}

function word(value: bigint | number | string): string {
  return (typeof value === 'string' ? value.replace(/^0x/, '') : BigInt(value).toString(16)).padStart(64, '0');
}

const rpc = (method: string, params: unknown[]) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
const pick = <T>(items: readonly T[]): T | undefined => (items.length === 0 ? undefined : items[Math.floor(Math.random() * items.length)]);
const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Runs the mix for `durationMs` (or until `abort()` returns true) and waits for the requests in flight. */
export async function runLoad(target: LoadTarget, durationMs: number, abort: () => boolean, mix: Record<Kind, KindPlan> = DEFAULT_MIX): Promise<LoadLog> {
  const kinds = Object.keys(mix) as Kind[];
  const stats = Object.fromEntries(kinds.map((k) => [k, { sent: 0, skipped: 0, ok: 0, errors: 0, latenciesMs: [] }])) as unknown as Record<Kind, KindStats>;
  const inFlight = Object.fromEntries(kinds.map((k) => [k, 0])) as Record<Kind, number>;
  const log: LoadLog = { stats, errors: [], txs: new Map() };
  // Keep-alive sockets for the ordinary mix; hostile requests get their own pool, so a
  // connection the server closes after refusing one cannot take an ordinary request with it.
  const client = new RpcClient(target.port, 512);
  const hostileClient = new RpcClient(target.port, 16);
  const busy = new Set<SoakSender>();
  const resync = new Set<SoakSender>();
  const cursor = { eth: 0, token: 0 };
  /** ETH recipients paid so far: recipient(0 … paidAccounts - 1). */
  let paidAccounts = 0;
  const nextRecipient = (): Uint8Array =>
    paidAccounts === 0 || Math.random() < target.newAccountShare ? recipient(paidAccounts++) : recipient(Math.floor(Math.random() * paidAccounts));
  let tokenTransfers = 0;
  const pending = new Set<Promise<void>>();

  const unexpected = (kind: SoakError['kind'], category: SoakError['category'], msg: string) => {
    log.errors.push({ kind, category, message: msg.slice(0, 300) });
  };

  /** Sends one body and judges its answer; `onResult` gets a successful result. Rethrows transport errors. */
  const send = async (kind: Kind, body: string, onResult?: (result: unknown) => void): Promise<void> => {
    const hostile = (HOSTILE_KINDS as readonly string[]).includes(kind);
    const s = stats[kind];
    s.sent++;
    inFlight[kind]++;
    const started = performance.now();
    try {
      const { status, text } = await (hostile ? hostileClient : client).post(body, REQUEST_TIMEOUT_MS);
      s.latenciesMs.push(performance.now() - started);
      if (hostile) {
        const verdict = judgeHostile(kind as HostileKind, status, text);
        if (verdict.ok) s.ok++;
        else {
          s.errors++;
          unexpected(kind, verdict.why.startsWith('non-JSON') ? 'nonJson' : 'hostileAccepted', verdict.why);
        }
        return;
      }
      let reply: { result?: unknown; error?: { code?: number; message?: string } };
      try {
        reply = JSON.parse(text) as typeof reply;
      } catch {
        s.errors++;
        unexpected(kind, 'nonJson', `HTTP ${status}: ${text.slice(0, 200)}`);
        return;
      }
      if (reply.error) {
        s.errors++;
        unexpected(kind, 'rpcError', `${reply.error.code}: ${reply.error.message}`);
        return;
      }
      if (status !== 200) {
        s.errors++;
        unexpected(kind, 'http', `HTTP ${status}: ${text.slice(0, 200)}`);
        return;
      }
      s.ok++;
      onResult?.(reply.result);
    } catch (error) {
      s.errors++;
      unexpected(kind, 'transport', message(error));
      throw error;
    } finally {
      inFlight[kind]--;
    }
  };

  const track = (work: Promise<void>) => {
    const p = work.catch(() => {}).finally(() => pending.delete(p));
    pending.add(p);
  };

  /** The next idle sender of a pool, round-robin, or undefined when all are waiting. */
  const idleSender = (pool: SoakSender[], which: 'eth' | 'token'): SoakSender | undefined => {
    for (let i = 0; i < pool.length; i++) {
      const sender = pool[(cursor[which] + i) % pool.length]!;
      if (!busy.has(sender)) {
        cursor[which] = (cursor[which] + i + 1) % pool.length;
        return sender;
      }
    }
    return undefined;
  };

  /** Signs and submits one transaction from `sender`, keeping its nonce right. */
  const submit = async (kind: 'transfer' | 'tokenTransfer', sender: SoakSender): Promise<void> => {
    busy.add(sender);
    try {
      if (resync.has(sender)) {
        // A submission whose answer was lost may or may not have been taken: ask the node.
        sender.nonce = BigInt(await client.call<string>('eth_getTransactionCount', [sender.address, 'pending']));
        resync.delete(sender);
      }
      const key = Buffer.from(sender.privateKey.slice(2), 'hex');
      const common = { chainId: BigInt(target.chainId), nonce: sender.nonce, ...FEES };
      const raw =
        kind === 'transfer'
          ? signEip1559({ ...common, gasLimit: 21_000n, to: nextRecipient(), value: 1_000_000_000_000n, data: new Uint8Array() }, key)
          : signEip1559(
              {
                ...common,
                gasLimit: TOKEN_TRANSFER_GAS,
                to: Buffer.from(target.token.slice(2), 'hex'),
                value: 0n,
                data: Buffer.from(TRANSFER_SELECTOR + word(holder(tokenTransfers++ % HOLDERS)) + word(1_000n), 'hex'),
              },
              key,
            );
      const sentAt = performance.now();
      let accepted = false;
      await send(kind, rpc('eth_sendRawTransaction', [hex(raw)]), (hash) => {
        accepted = true;
        log.txs.set(String(hash), sentAt);
      });
      if (accepted) sender.nonce++;
      else resync.add(sender);
    } catch {
      resync.add(sender);
    } finally {
      busy.delete(sender);
    }
  };

  /** Issues one request of `kind`; false when it had to be skipped. */
  const issue = (kind: Kind): boolean => {
    if (inFlight[kind] >= mix[kind].maxInFlight) return false;
    const head = target.watcher.height();
    const recentTx = pick(target.watcher.recent());
    switch (kind) {
      case 'transfer':
      case 'tokenTransfer': {
        const sender = kind === 'transfer' ? idleSender(target.ethSenders, 'eth') : idleSender(target.tokenSenders, 'token');
        if (!sender) return false;
        track(submit(kind, sender));
        return true;
      }
      case 'eth_getBalance': {
        const who = Math.random() < 0.5 ? pick(target.ethSenders)!.address : hex(recipient(Math.floor(Math.random() * Math.max(1, paidAccounts))));
        track(send(kind, rpc(kind, [who, 'latest'])));
        return true;
      }
      case 'eth_getBlockByNumber':
        // Alternately hashes only and full transactions, at or just below the head.
        track(send(kind, rpc(kind, [`0x${Math.max(0, head - Math.floor(Math.random() * 5)).toString(16)}`, Math.random() < 0.5])));
        return true;
      case 'eth_getLogs':
        track(send(kind, rpc(kind, [{ fromBlock: `0x${Math.max(0, head - 9).toString(16)}`, toBlock: `0x${head.toString(16)}`, address: target.token }])));
        return true;
      case 'eth_call':
        // Holders already paid and holders not yet: a different answer, and no call-cache hit, most of the time.
        track(send(kind, rpc(kind, [{ to: target.token, data: balanceOfData(holder(Math.floor(Math.random() * Math.min(HOLDERS, tokenTransfers + 1_000)))) }, 'latest'])));
        return true;
      case 'debug_traceTransaction':
        if (!recentTx) return false;
        track(send(kind, rpc(kind, [recentTx, { tracer: 'callTracer' }])));
        return true;
      default:
        track(send(kind, hostileBody(kind, target.limits, recentTx)));
        return true;
    }
  };

  const started = performance.now();
  const due = Object.fromEntries(kinds.map((k) => [k, 0])) as Record<Kind, number>;
  try {
    while (!abort()) {
      const elapsed = performance.now() - started;
      if (elapsed >= durationMs) break;
      for (const kind of kinds) {
        const owed = Math.floor((mix[kind].perSecond * elapsed) / 1000) - due[kind];
        // Bounded per tick: after a long event-loop stall, at most a second's worth is sent at
        // once and the rest is counted as skipped.
        const burst = Math.ceil(mix[kind].perSecond);
        for (let i = 0; i < owed; i++) if (i >= burst || !issue(kind)) stats[kind].skipped++;
        due[kind] += owed;
      }
      await sleep(TICK_MS);
    }
    // Requests carry their own timeout, so this wait is bounded by it.
    await Promise.all([...pending]);
  } finally {
    client.close();
    hostileClient.close();
  }
  return log;
}
