/** The chain rules the node executes with: Prague, the chain's EVM chain id, native crypto. */
import { paramsBlock } from '@ethereumjs/block';
import { Common, Hardfork, Mainnet, createCustomCommon } from '@ethereumjs/common';
import { paramsEVM } from '@ethereumjs/evm';
import { paramsTx } from '@ethereumjs/tx';
import { paramsVM } from '@ethereumjs/vm';
import { nativeCrypto } from './crypto.js';

// @ethereumjs merges its module-level parameter tables into a fresh copy of the Common every
// time a VM, an EVM, a transaction or a block header is built: a deep copy and a cache rebuild
// each time, a large share of an eth_call's or a transaction decode's CPU. The chain's Common
// merges all four once, and its copies skip those tables (any other table still merges).
const PRELOADED: ReadonlySet<object> = new Set<object>([paramsTx, paramsVM, paramsEVM, paramsBlock]);
const mergeParams = Common.prototype.updateParams;

function updateParamsUnlessPreloaded(this: Common, params: Parameters<Common['updateParams']>[0]): void {
  if (!PRELOADED.has(params)) mergeParams.call(this, params);
}

/** The Common's private list of activated EIPs, rebuilt (as a new array) when its hardfork changes. */
interface EipCache {
  _activatedEIPsCache: readonly number[];
}

/** A bitmap of each activated-EIP list; copies of a Common share the list, and so its bitmap. */
const eipBitmaps = new WeakMap<readonly number[], Uint8Array>();
let lastList: readonly number[] | undefined;
let lastBitmap: Uint8Array = new Uint8Array(0);

// The interpreter asks isActivatedEIP several times per opcode, mostly for EIPs that are not
// active, and the library answers by scanning its list of some eighty numbers each time.
function isActivatedEipByBitmap(this: Common, eip: number): boolean {
  const list = (this as unknown as EipCache)._activatedEIPsCache;
  if (list !== lastList) {
    let bitmap = eipBitmaps.get(list);
    if (bitmap === undefined) {
      bitmap = new Uint8Array(list.reduce((max, n) => Math.max(max, n), 0) + 1);
      for (const n of list) bitmap[n] = 1;
      eipBitmaps.set(list, bitmap);
    }
    lastList = list;
    lastBitmap = bitmap;
  }
  return lastBitmap[eip] === 1;
}

/** A Common for `evmChainId` with Prague rules and native keccak / ecrecover. */
export function createChainCommon(evmChainId: number | bigint): Common {
  const common = createCustomCommon({ chainId: Number(evmChainId) }, Mainnet, {
    hardfork: Hardfork.Prague,
    customCrypto: nativeCrypto,
  });
  for (const table of PRELOADED) mergeParams.call(common, table as Parameters<Common['updateParams']>[0]);
  // An own property, so Common.copy() (Object.assign) carries it to every copy.
  common.updateParams = updateParamsUnlessPreloaded;
  common.isActivatedEIP = isActivatedEipByBitmap;
  return common;
}

/**
 * The Common to build one VM on. @ethereumjs's EVM subscribes to its Common's
 * `hardforkChanged` event and never unsubscribes, so an EVM built on the chain's long-lived
 * Common stays reachable from it — with its state manager and everything that holds — for as
 * long as the node runs. A copy per VM lives and dies with that VM (copies are cheap: the
 * parameter tables stay shared).
 */
export function vmCommon(common: Common): Common {
  return common.copy();
}
