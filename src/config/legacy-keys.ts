/**
 * Refusal of the pre-`evm-ss-split` keys `evm-ss-write-mode` / `evm-ss-read-mode`. Only the
 * pair `split_write` + `split_read` meant "EVM state lives only in the EVM SS"; every other
 * combination kept EVM reads on the Cosmos SS, which is `evm-ss-split = false` today. They are
 * refused wherever app.toml holds them (top level, any section): a node that ignored them
 * would run with a layout the operator did not choose.
 */
import { LegacyConfigKeyError } from './errors.js';
import { describeValue, isTable, type TomlTable, type TomlValue } from './toml-value.js';

/** Section the legacy keys belonged in, and where `evm-ss-split` lives. */
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

/** The tables of `root` as `[section, table]`, the top level ("") first, nested ones dotted. */
function tablesOf(root: TomlTable, prefix = ''): Array<[string, TomlTable]> {
  const out: Array<[string, TomlTable]> = [[prefix, root]];
  for (const [key, value] of Object.entries(root)) {
    if (isTable(value)) out.push(...tablesOf(value, prefix === '' ? key : `${prefix}.${key}`));
  }
  return out;
}

/**
 * Throws LegacyConfigKeyError when app.toml holds either legacy key: in `[state-store]` (looked
 * at first, where both belonged) or in any other table, the top level included.
 */
export function rejectLegacyEvmSsKeys(file: string, root: TomlTable): void {
  const tables = tablesOf(root).sort(([a], [b]) => Number(b === SECTION) - Number(a === SECTION));
  for (const [section, table] of tables) rejectLegacyKeysIn(file, section, table);
}

function rejectLegacyKeysIn(file: string, section: string, table: TomlTable): void {
  const write = findLegacy(table, WRITE_MODE);
  const read = findLegacy(table, READ_MODE);
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
  const where = section === '' ? `${file} ${first.key}` : `${file} [${section}] ${first.key}`;
  const message =
    `${where}: expected ${allowed}; found ${found}. ` +
    `Mapping: ${WRITE_MODE} = "split_write" together with ${READ_MODE} = "split_read" is evm-ss-split = true; ` +
    `any other combination is evm-ss-split = false, so these values correspond to evm-ss-split = ${equivalent}. ` +
    `Write instead: remove ${WRITE_MODE} and ${READ_MODE} from ${section === '' ? 'the top level' : `[${section}]`} and set evm-ss-split = ${equivalent} ` +
    `in [${SECTION}] (evm-ss-split = true|false).${migrationNote}`;
  throw new LegacyConfigKeyError({ file, section, key: first.key, allowed, found }, legacy, equivalent, message);
}
