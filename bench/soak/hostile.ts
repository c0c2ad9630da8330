/**
 * The hostile share of the soak mix: requests a public endpoint gets from broken or malicious
 * clients. Each must be refused with a JSON-RPC error (HTTP 413 for the oversized body); the
 * soak counts anything else — a success, a non-JSON answer, a dropped connection — as an
 * unexpected outcome.
 */

/** The hostile request kinds. */
export const HOSTILE_KINDS = ['malformedJson', 'hugeBatch', 'feeHistory1000', 'oversizedBody', 'loopingCall', 'loopingJsTracer'] as const;
export type HostileKind = (typeof HOSTILE_KINDS)[number];

/** The node's request limits the hostile requests are sized against (from its app.toml). */
export interface RpcLimits {
  maxBodyBytes: number;
  maxBatchSize: number;
}

/**
 * `JUMPDEST PUSH1 0 JUMP`: a contract that jumps back to its start forever, so a call to it
 * runs until it has spent the gas cap.
 */
const LOOP_CODE = '0x5b600056';
/** Where the looping code is put by state override; nothing is deployed there. */
const LOOP_ADDRESS = '0x00000000000000000000000000000000005041a1';
/**
 * A JavaScript tracer that never returns, from `step` (for transactions that run code) and from
 * `result` (called for every transaction), so only the request's `timeout` can end it.
 */
const LOOPING_TRACER = '{ step: function () { for (;;) {} }, fault: function () {}, result: function () { for (;;) {} } }';

/** A JSON-RPC 2.0 request body. */
function rpc(method: string, params: unknown[], id: number | string = 1): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method, params });
}

/** Bodies that do not change during a run, built once: the oversized one alone is 5 MiB. */
const built = new Map<string, string>();

/** The body of one hostile request; `recentTx` is a recently included transaction hash (or undefined). */
export function hostileBody(kind: HostileKind, limits: RpcLimits, recentTx: string | undefined): string {
  if (kind === 'loopingJsTracer') return rpc('debug_traceTransaction', [recentTx ?? `0x${'00'.repeat(32)}`, { tracer: LOOPING_TRACER, timeout: '1s' }]);
  const key = `${kind}/${limits.maxBodyBytes}/${limits.maxBatchSize}`;
  let body = built.get(key);
  if (body === undefined) {
    body = staticBody(kind, limits);
    built.set(key, body);
  }
  return body;
}

function staticBody(kind: Exclude<HostileKind, 'loopingJsTracer'>, limits: RpcLimits): string {
  switch (kind) {
    case 'malformedJson':
      // Cut off mid-array: a parse error, not an unknown method.
      return '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[';
    case 'hugeBatch':
      return `[${Array.from({ length: limits.maxBatchSize + 1 }, (_, i) => rpc('eth_chainId', [], i)).join(',')}]`;
    case 'feeHistory1000':
      // 1,000 strictly increasing percentiles in [0.1, 100], valid but for their number.
      return rpc('eth_feeHistory', ['0x4', 'latest', Array.from({ length: 1000 }, (_, i) => (i + 1) / 10)]);
    case 'oversizedBody':
      // A well-formed eth_call whose calldata alone is 1 KiB over the body limit.
      return rpc('eth_call', [{ to: LOOP_ADDRESS, data: `0x${'ab'.repeat(Math.ceil((limits.maxBodyBytes + 1024) / 2))}` }, 'latest']);
    case 'loopingCall':
      // No `gas`: the node's gas cap is what ends it.
      return rpc('eth_call', [{ to: LOOP_ADDRESS, data: '0x' }, 'latest', { [LOOP_ADDRESS]: { code: LOOP_CODE } }]);
  }
}

/** True when `text` is a JSON-RPC error: one error object, or a non-empty array of them. */
export function isRpcError(text: string): boolean {
  let reply: unknown;
  try {
    reply = JSON.parse(text);
  } catch {
    return false;
  }
  const isError = (r: unknown) => typeof r === 'object' && r !== null && 'error' in r && !('result' in r);
  return Array.isArray(reply) ? reply.length > 0 && reply.every(isError) : isError(reply);
}

/** Whether a hostile request's answer is the refusal it should be, or why not. */
export function judgeHostile(kind: HostileKind, status: number, text: string): { ok: true } | { ok: false; why: string } {
  if (kind === 'oversizedBody' && status === 413) return { ok: true };
  if (isRpcError(text)) return { ok: true };
  let parsed = true;
  try {
    JSON.parse(text);
  } catch {
    parsed = false;
  }
  return { ok: false, why: parsed ? `answered without an error (HTTP ${status}): ${text.slice(0, 200)}` : `non-JSON answer (HTTP ${status}): ${text.slice(0, 200)}` };
}
