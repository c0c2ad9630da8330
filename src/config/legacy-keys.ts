/**
 * Refusal of the pre-`evm-ss-split` keys `evm-ss-write-mode` / `evm-ss-read-mode`. Only the
 * pair `split_write` + `split_read` meant "EVM state lives only in the EVM SS"; every other
 * combination kept EVM reads on the Cosmos SS, which is `evm-ss-split = false` today.
 */
import { LegacyConfigKeyError } from './errors.js';
import { describeValue, type TomlTable, type TomlValue } from './toml-value.js';

/** Section holding the legacy keys. */
const SECTION = 'state-store';
const WRITE_MODE = 'evm-ss-write-mode';
const READ_MODE = 'evm-ss-read-mode';

/** Finds a legacy key under either separator: a hand-edited file may spell it either way. */
function findLegacy(table: TomlTable, key: string): { key: string; value: TomlValue } | undefined {
  for (const spelled of [key, key.replace(/-/g, '_')]) {
    const value = table[spelled];
    if (value !== undefined) return { key: spelled, value };
  }
  return undefined;
}

/** The `evm-ss-split` value the legacy modes correspond to. */
export function splitEquivalentOfLegacyModes(writeMode: TomlValue | undefined, readMode: TomlValue | undefined): boolean {
  return writeMode === 'split_write' && readMode === 'split_read';
}

/** Throws LegacyConfigKeyError when the `[state-store]` table holds either legacy key. */
export function rejectLegacyEvmSsKeys(file: string, stateStore: TomlTable): void {
  const write = findLegacy(stateStore, WRITE_MODE);
  const read = findLegacy(stateStore, READ_MODE);
  const first = write ?? read;
  if (first === undefined) return;

  const equivalent = splitEquivalentOfLegacyModes(write?.value, read?.value);
  const foundParts = [write, read].flatMap((entry) => (entry === undefined ? [] : [`${entry.key} = ${describeValue(entry.value)}`]));
  const found = foundParts.join(', ');
  const allowed = 'no such key: it belongs to releases before evm-ss-split and is no longer read';
  const legacy = {
    writeMode: write === undefined ? undefined : describeValue(write.value),
    readMode: read === undefined ? undefined : describeValue(read.value),
  };
  const migrationNote = equivalent
    ? ''
    : ' Choosing true instead moves EVM state to data/evm_ss/ and needs the migration procedure (wipe data/, then state sync).';
  const message =
    `${file} [${SECTION}] ${first.key}: expected ${allowed}; found ${found}. ` +
    `Mapping: ${WRITE_MODE} = "split_write" together with ${READ_MODE} = "split_read" is evm-ss-split = true; ` +
    `any other combination is evm-ss-split = false, so these values correspond to evm-ss-split = ${equivalent}. ` +
    `Write instead: remove ${WRITE_MODE} and ${READ_MODE} from [${SECTION}] and set evm-ss-split = ${equivalent} ` +
    `in [${SECTION}] (evm-ss-split = true|false).${migrationNote}`;
  throw new LegacyConfigKeyError({ file, section: SECTION, key: first.key, allowed, found }, legacy, equivalent, message);
}
