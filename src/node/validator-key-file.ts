/**
 * The validator key file of a home, as every command that needs it reads it. CometBFT stops
 * with "Private validator file not found" when `config/priv_validator_key.json` is missing or
 * cannot be read; this node does the same instead of starting without a key (a home whose
 * genesis names its validator would then never sign, and the chain would stop).
 */
import { accessSync, constants, existsSync } from 'node:fs';

import { loadValidatorKey, type ValidatorKey } from '../chain/keys.js';
import type { HomePaths } from './home.js';

/** The validator key file is missing or unreadable; the message names the path and the remedy. */
export class PrivateValidatorFileError extends Error {
  constructor(path: string, cause: string) {
    super(
      `Private validator file not found: ${path} (${cause}); restore the key file from your backup or fix its permissions ` +
        '(a node that is not a validator needs one too: `stratad init` creates it)',
    );
    this.name = 'PrivateValidatorFileError';
  }
}

/** Reads the home's validator key; PrivateValidatorFileError when the file is missing or unreadable. */
export function loadHomeValidatorKey(paths: HomePaths): ValidatorKey {
  if (!existsSync(paths.validatorKey)) throw new PrivateValidatorFileError(paths.validatorKey, 'no such file');
  try {
    accessSync(paths.validatorKey, constants.R_OK);
  } catch (error) {
    throw new PrivateValidatorFileError(paths.validatorKey, `cannot read it: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  return loadValidatorKey(paths.validatorKey);
}
