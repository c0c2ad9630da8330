/**
 * The state store (SS) must hold every version the commitment (SC) has committed: a height it
 * lacks would be answered from older versions, silently wrong. After a crash between the SC
 * commit and the SS apply, or with an SS directory restored from an older backup, the SS is
 * behind: the SC is rolled back to the SS's version and the node re-executes the stored blocks
 * after it; when that crash hit the first block (the SS then holds nothing, since the genesis
 * state reaches it merged into the first block's version), the SC goes back to empty and the
 * first block is produced or executed again. An SS with no history at all (deleted, or a new
 * `ss-backend` directory on a home with history) cannot be rebuilt that way, and the node
 * refuses to start.
 */
import { existsSync, readdirSync } from 'node:fs';

import type { Logger } from '../log/logger.js';
import { commitmentHasHistory, cosmosStoreDir, evmStoreDir, type CommitStore, type CompositeStateStore, type StateStoreConfig } from '../store/index.js';
import { AppError } from './errors.js';

const REMEDY =
  'restore the state store directory from a backup of this node, or state-sync the node into an emptied data directory; ' +
  'if ss-backend was changed, set it back to the backend the home was created with: a switch of ss-backend is done by ' +
  'stratad migrate evm-ss-split --rpc <trusted node consensus RPC> --backend <new ss-backend> (a wipe and a state sync)';

/** The SS lacks versions the SC committed and the SC cannot be rolled back to it. */
export class StateStoreBehindError extends AppError {}

/**
 * Refuses, before the SS is opened (which would create it), when the SC has history and the
 * Cosmos SS directory is missing or empty. Without an open SC (`sc` undefined) its history is
 * read from memiavl's directory, so the check can run before anything is opened for writing.
 */
export function checkStateStorePresent(sc: CommitStore | undefined, config: StateStoreConfig, dataDir: string): void {
  const dir = cosmosStoreDir(dataDir, config.backend);
  if (existsSync(dir) && readdirSync(dir).length > 0) return;
  if (sc ? sc.version() === 0 : !commitmentHasHistory(dataDir)) return;
  const committed = sc ? `is at height ${sc.version()}` : 'has committed blocks';
  throw new StateStoreBehindError(
    `the state store (${dir}, ss-backend "${config.backend}") holds no history but the state commitment ${committed}: ` +
      `historical queries would be answered wrongly, so the node does not start; ${REMEDY}`,
  );
}

/**
 * Brings the SC back to the SS's latest version when the SS is behind; refuses when it cannot.
 * `initialHeight` is the chain's first height (genesis `initial_height`).
 */
export async function reconcileStateStore(
  sc: CommitStore,
  ss: CompositeStateStore,
  config: StateStoreConfig,
  dataDir: string,
  logger: Logger,
  initialHeight: number,
): Promise<void> {
  const scVersion = sc.version();
  const ssVersion = Number(ss.latestVersion());
  if (ssVersion >= scVersion) return;
  const dirs = config.evmSsSplit ? `${cosmosStoreDir(dataDir, config.backend)} and ${evmStoreDir(dataDir)}` : cosmosStoreDir(dataDir, config.backend);
  if (ssVersion === 0 && scVersion === initialHeight) {
    // Killed between the SC commit and the SS apply of the first block: the SS holds nothing
    // yet, because the genesis state reaches it only merged into that block's version. The
    // SC's one version is the genesis plus that block, both re-created at the next start (the
    // genesis staged again, the block produced again from the proposal log or re-executed from
    // the block store), so the SC goes back to empty.
    try {
      await sc.rollback(0);
    } catch (error) {
      throw new StateStoreBehindError(
        `the state store (${dirs}) holds nothing but the state commitment holds the first block (height ${scVersion}), and the ` +
          `commitment cannot go back to before it (${error instanceof Error ? error.message : String(error)}); ${REMEDY}`,
      );
    }
    logger.warn('the state store did not hold the first block the state commitment held: emptied the commitment; the first block is produced or executed again', {
      height: scVersion,
    });
    return;
  }
  if (ssVersion === 0) {
    throw new StateStoreBehindError(
      `the state store (${dirs}, ss-backend "${config.backend}") holds no history but the state commitment is at height ${scVersion}: ` +
        `historical queries would be answered wrongly, so the node does not start; ${REMEDY}`,
    );
  }
  try {
    await sc.rollback(ssVersion);
  } catch (error) {
    throw new StateStoreBehindError(
      `the state store (${dirs}) is at height ${ssVersion} but the state commitment at ${scVersion}, and the commitment cannot go back ` +
        `to ${ssVersion} (${error instanceof Error ? error.message : String(error)}); ${REMEDY}`,
    );
  }
  logger.warn('the state store was behind the state commitment: rolled the commitment back; the stored blocks after it are executed again', {
    ssVersion,
    scVersion,
  });
}
