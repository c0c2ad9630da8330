/** geth's `4byteTracer`: how often each function selector was called, per calldata size. */
import { bytesHex } from './hex.js';
import type { FrameStart, Hex, JsonValue, Tracer, TxStart } from './types.js';

const SELECTOR_CALLS: ReadonlySet<string> = new Set(['CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL']);

/** Counts `0x<selector>-<argument bytes>` over every call frame with at least 4 bytes of input. */
export class FourByteTracer implements Tracer {
  private readonly counts = new Map<string, number>();
  private isPrecompile: (address: Hex) => boolean = () => false;

  onTxStart(tx: TxStart): void {
    this.isPrecompile = (address) => tx.rules.isPrecompile(address);
  }

  onEnter(frame: FrameStart): void {
    if (!SELECTOR_CALLS.has(frame.type) || frame.input.length < 4) return;
    if (frame.to !== undefined && this.isPrecompile(frame.to)) return;
    const key = `${bytesHex(frame.input.subarray(0, 4))}-${frame.input.length - 4}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  result(): JsonValue {
    const keys = [...this.counts.keys()].sort();
    return Object.fromEntries(keys.map((key) => [key, this.counts.get(key) ?? 0]));
  }
}
