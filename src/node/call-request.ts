/** The RPC layer's call objects and state overrides in the executor's terms (shared by the eth_ and debug_ backends). */
import type { AccountOverride, CallRequest as AppCallRequest, StateOverrides as AppStateOverrides } from '../evm/call.js';
import type { CallRequest, StateOverrides } from '../rpc/eth/backend.js';

/** An eth_call / debug_traceCall call object for the executor. */
export function appCallRequest(request: CallRequest): AppCallRequest {
  return {
    ...(request.from ? { from: request.from } : {}),
    ...(request.to ? { to: request.to } : {}),
    ...(request.gas !== undefined ? { gas: request.gas } : {}),
    ...(request.gasPrice !== undefined ? { gasPrice: request.gasPrice } : {}),
    ...(request.maxFeePerGas !== undefined ? { maxFeePerGas: request.maxFeePerGas } : {}),
    ...(request.maxPriorityFeePerGas !== undefined ? { maxPriorityFeePerGas: request.maxPriorityFeePerGas } : {}),
    ...(request.value !== undefined ? { value: request.value } : {}),
    ...(request.input ? { data: request.input } : {}),
    ...(request.accessList ? { accessList: request.accessList.map((e) => ({ address: e.address, storageKeys: [...e.storageKeys] })) } : {}),
  };
}

/** State overrides for the executor (none when absent). */
export function appStateOverrides(overrides: StateOverrides | undefined): AppStateOverrides {
  if (!overrides) return [];
  const slots = (map: ReadonlyMap<string, Uint8Array> | undefined) =>
    map ? [...map].map(([slot, value]) => ({ slot: Buffer.from(slot.replace(/^0x/, '').padStart(64, '0'), 'hex'), value })) : undefined;
  return [...overrides].map(([address, o]) => {
    const state = slots(o.state);
    const stateDiff = slots(o.stateDiff);
    const override: AccountOverride = {
      ...(o.balance !== undefined ? { balance: o.balance } : {}),
      ...(o.nonce !== undefined ? { nonce: o.nonce } : {}),
      ...(o.code !== undefined ? { code: o.code } : {}),
      ...(state ? { state } : {}),
      ...(stateDiff ? { stateDiff } : {}),
    };
    return { address: Buffer.from(address.replace(/^0x/, ''), 'hex'), override };
  });
}
