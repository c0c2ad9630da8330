/**
 * `stratad query staking validator`: a validator record read from the node's own state — the
 * `staking` store in the Cosmos SS at its latest version, opened read-only (so it works beside
 * a running node and changes nothing), or the genesis state before the first block.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import {
  decodeValidatorRecord,
  genesisChangesets,
  operatorAddressBytes,
  parseGenesisJson,
  validatorRecordKey,
  type ValidatorRecord,
} from '../app/index.js';
import { loadConfig } from '../config/index.js';
import { MvccStore, cosmosStoreDir } from '../store/index.js';
import type { HomePaths } from './home.js';

/** The store that holds validator records. */
const STAKING_STORE = 'staking';

/** No validator with that operator address is in the state. */
export class ValidatorNotFoundError extends Error {
  constructor(operator: string, height: number) {
    super(`validator ${operator} does not exist (state at height ${height}); list the genesis validators in config/genesis.json`);
    this.name = 'ValidatorNotFoundError';
  }
}

/** A validator record and the height of the state it was read from. */
export interface ValidatorQueryResult {
  validator: ValidatorRecord;
  height: number;
}

/** Reads the record of the validator whose operator address is `operator` (`stratavaloper1…`). */
export async function queryValidator(paths: HomePaths, operator: string): Promise<ValidatorQueryResult> {
  const key = validatorRecordKey(operatorAddressBytes(operator));
  const config = await loadConfig(paths.home);
  const dir = cosmosStoreDir(paths.data, config.app.stateStore.backend);
  if (existsSync(join(dir, 'CURRENT'))) {
    const ss = await MvccStore.open(dir, { backend: config.app.stateStore.backend, readOnly: true, createIfMissing: false });
    try {
      const height = Number(ss.latestVersion());
      if (height > 0) {
        const value = ss.get(STAKING_STORE, height, key);
        if (!value) throw new ValidatorNotFoundError(operator, height);
        return { validator: decodeValidatorRecord(value), height };
      }
    } finally {
      await ss.close();
    }
  }
  // Before the first block the genesis state is all there is.
  const genesis = parseGenesisJson(readFileSync(paths.genesis, 'utf8'));
  const staking = genesisChangesets(genesis).find((c) => c.name === STAKING_STORE);
  const pair = staking?.pairs.find((p) => Buffer.from(p.key).equals(Buffer.from(key)));
  if (!pair?.value) throw new ValidatorNotFoundError(operator, 0);
  return { validator: decodeValidatorRecord(pair.value), height: 0 };
}
