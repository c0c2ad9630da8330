/**
 * The three startup safety checks of `evm-ss-split = true`. Each is a pure function of what is
 * on disk, so the composite store can run it first on read-only views (a refused start then
 * changes nothing) and again at its moment in the startup sequence.
 */
import { readdirSync } from 'node:fs';
import { StoreError } from './errors.js';
import type { Version } from './state-store.js';

/** What a check needs to know of one side. */
export interface SideVersions {
  latest: Version;
  earliest: Version;
}

/** Whether a side holds committed history (latest or earliest above 0). */
export function hasHistory(side: SideVersions): boolean {
  return BigInt(side.latest) > 0n || BigInt(side.earliest) > 0n;
}

const FIXES =
  'Fix: complete a full state sync into an emptied data directory (see the migration procedure), ' +
  'or set evm-ss-split = false in app.toml and restart.';

/** A refused start of a split node: which check, and why. */
export class SplitSafetyCheckError extends StoreError {
  /** 1, 2 or 3, in the order of the startup sequence. */
  readonly check: 1 | 2 | 3;
  constructor(check: 1 | 2 | 3, message: string) {
    super(`EVM SS safety check ${check} failed: ${message}. ${FIXES}`, 'STRATA_SPLIT_CHECK_FAILED');
    this.check = check;
  }
}

/** Whether `dir` is missing, empty, or holds entries. */
export function directoryState(dir: string): 'missing' | 'empty' | 'populated' {
  try {
    return readdirSync(dir).length === 0 ? 'empty' : 'populated';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw error;
  }
}

/** Check 1, before the EVM SS is opened: a Cosmos SS with history needs a populated EVM SS directory. */
export function checkEvmDirectory(evmDir: string, cosmos: SideVersions): void {
  if (!hasHistory(cosmos)) return;
  const state = directoryState(evmDir);
  if (state === 'populated') return;
  throw new SplitSafetyCheckError(
    1,
    `EVM SS directory "${evmDir}" ${state === 'missing' ? 'does not exist' : 'is empty'} but the Cosmos SS already has ` +
      `history (latest version ${cosmos.latest}, earliest version ${cosmos.earliest}); turning evm-ss-split on ` +
      'without a state sync would serve EVM reads from an empty store',
  );
}

/**
 * Check 2, after open and before recovery: the EVM SS must hold data when the Cosmos SS does.
 * The one exception is `rebuildable`: an EVM SS created with the node's first block whose
 * Cosmos changelog still holds every block since genesis (a crash before the EVM SS applied
 * anything); recovery rebuilds it from that changelog, since a split node logs whole blocks.
 */
export function checkEvmNotEmpty(evmDir: string, evm: SideVersions, cosmos: SideVersions, rebuildable: boolean): void {
  if (!hasHistory(cosmos) || hasHistory(evm) || rebuildable) return;
  throw new SplitSafetyCheckError(
    2,
    `the EVM SS in "${evmDir}" holds no data (latest version ${evm.latest}) but the Cosmos SS already has history ` +
      `(latest version ${cosmos.latest}); its changelog covers only recent blocks, so replay cannot rebuild it`,
  );
}

/** Check 3, after recovery: both sides must start at the same earliest version. */
export function checkEarliestVersions(evmDir: string, cosmosDir: string, evm: SideVersions, cosmos: SideVersions): void {
  const evmEarliest = BigInt(evm.earliest);
  const cosmosEarliest = BigInt(cosmos.earliest);
  if (evmEarliest === cosmosEarliest) return;
  throw new SplitSafetyCheckError(
    3,
    `EVM SS earliest version ${evmEarliest} ("${evmDir}") does not match Cosmos SS earliest version ${cosmosEarliest} ` +
      `("${cosmosDir}"), a divergence of ${evmEarliest > cosmosEarliest ? evmEarliest - cosmosEarliest : cosmosEarliest - evmEarliest} ` +
      'versions: the two were populated from different snapshots or pruned independently',
  );
}
