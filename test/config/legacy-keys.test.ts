/**
 * The pre-`evm-ss-split` keys `evm-ss-write-mode` / `evm-ss-read-mode` are refused with a
 * LegacyConfigKeyError that says where they come from, how they map onto `evm-ss-split`, and
 * what to write instead; the mapping follows the values found.
 */
import t from 'tap';
import { ConfigError, LegacyConfigKeyError, splitEquivalentOfLegacyModes } from '../../src/config/index.js';
import { rejection, TempHome } from './fixtures/home.js';

interface LegacyCase {
  lines: string[];
  equivalent: boolean;
  /** The key the error names (the first legacy key found). */
  key: string;
  found: string;
}

const CASES: LegacyCase[] = [
  {
    lines: ['evm-ss-write-mode = "split_write"', 'evm-ss-read-mode = "split_read"'],
    equivalent: true,
    key: 'evm-ss-write-mode',
    found: 'evm-ss-write-mode = "split_write", evm-ss-read-mode = "split_read"',
  },
  { lines: ['evm-ss-write-mode = "dual_write"', 'evm-ss-read-mode = "evm_first"'], equivalent: false, key: 'evm-ss-write-mode', found: 'evm-ss-write-mode = "dual_write", evm-ss-read-mode = "evm_first"' },
  { lines: ['evm-ss-write-mode = "split_write"', 'evm-ss-read-mode = "cosmos_only"'], equivalent: false, key: 'evm-ss-write-mode', found: 'evm-ss-write-mode = "split_write", evm-ss-read-mode = "cosmos_only"' },
  { lines: ['evm-ss-write-mode = "split_write"'], equivalent: false, key: 'evm-ss-write-mode', found: 'evm-ss-write-mode = "split_write"' },
  { lines: ['evm-ss-read-mode = "split_read"'], equivalent: false, key: 'evm-ss-read-mode', found: 'evm-ss-read-mode = "split_read"' },
  { lines: ['evm-ss-write-mode = "cosmos_only"', 'evm-ss-read-mode = "cosmos_only"'], equivalent: false, key: 'evm-ss-write-mode', found: 'evm-ss-write-mode = "cosmos_only", evm-ss-read-mode = "cosmos_only"' },
  { lines: ['evm_ss_write_mode = "split_write"', 'evm_ss_read_mode = "split_read"'], equivalent: true, key: 'evm_ss_write_mode', found: 'evm_ss_write_mode = "split_write", evm_ss_read_mode = "split_read"' },
  // Present next to the new key: still refused, the old key must go.
  { lines: ['evm-ss-split = true', 'evm-ss-read-mode = "split_read"', 'evm-ss-write-mode = "split_write"'], equivalent: true, key: 'evm-ss-write-mode', found: 'evm-ss-write-mode = "split_write", evm-ss-read-mode = "split_read"' },
  { lines: ['evm-ss-write-mode = true'], equivalent: false, key: 'evm-ss-write-mode', found: 'evm-ss-write-mode = true' },
];

t.test('legacy keys are refused with where they come from, the mapping and the replacement', async (t) => {
  const home = await TempHome.create(t);
  for (const legacy of CASES) {
    await t.test(legacy.lines.join('; '), async (t) => {
      const error = await rejection(() => home.load({ app: ['[state-store]', ...legacy.lines].join('\n') }));
      if (!(error instanceof LegacyConfigKeyError)) {
        t.fail(`expected LegacyConfigKeyError, got ${String(error)}`);
        return;
      }
      t.ok(error instanceof ConfigError, 'is a ConfigError too');
      t.equal(error.file, 'config/app.toml');
      t.equal(error.section, 'state-store');
      t.equal(error.key, legacy.key);
      t.equal(error.found, legacy.found);
      t.equal(error.equivalentSplit, legacy.equivalent, 'equivalent evm-ss-split');
      const message = error.message;
      t.ok(message.startsWith(`config/app.toml [state-store] ${legacy.key}: expected `), 'located');
      t.match(message, 'belongs to releases before evm-ss-split', 'says where the key comes from');
      t.match(message, `found ${legacy.found}`, 'shows the values found');
      t.match(
        message,
        'evm-ss-write-mode = "split_write" together with evm-ss-read-mode = "split_read" is evm-ss-split = true; any other combination is evm-ss-split = false',
        'states the mapping',
      );
      t.match(message, `these values correspond to evm-ss-split = ${legacy.equivalent}`, 'applies the mapping to the values found');
      t.match(message, `remove evm-ss-write-mode and evm-ss-read-mode from [state-store] and set evm-ss-split = ${legacy.equivalent} in [state-store]`, 'says what to write instead');
      t.match(message, 'evm-ss-split = true|false', 'names both values of the replacement');
      t.equal(message.includes('needs the migration procedure'), !legacy.equivalent, 'warns that turning the split on needs a migration only when the old values did not split');
    });
  }
});

t.test('the exact refusal text for the split pair', async (t) => {
  const home = await TempHome.create(t);
  const error = await rejection(() => home.load({ app: '[state-store]\nevm-ss-write-mode = "split_write"\nevm-ss-read-mode = "split_read"\n' }));
  t.equal(
    error instanceof Error ? error.message : '',
    'config/app.toml [state-store] evm-ss-write-mode: expected no such key: it belongs to releases before evm-ss-split and is no longer read; ' +
      'found evm-ss-write-mode = "split_write", evm-ss-read-mode = "split_read". ' +
      'Mapping: evm-ss-write-mode = "split_write" together with evm-ss-read-mode = "split_read" is evm-ss-split = true; ' +
      'any other combination is evm-ss-split = false, so these values correspond to evm-ss-split = true. ' +
      'Write instead: remove evm-ss-write-mode and evm-ss-read-mode from [state-store] and set evm-ss-split = true in [state-store] (evm-ss-split = true|false).',
  );
});

t.test('the legacy refusal wins over other problems in the same section', async (t) => {
  // An operator fixing the file should learn about the release mismatch first.
  const home = await TempHome.create(t);
  const error = await rejection(() => home.load({ app: '[state-store]\nss-backend = "leveldb"\nevm-ss-read-mode = "split_read"\n' }));
  t.ok(error instanceof LegacyConfigKeyError, String(error));
});

t.test('legacy keys outside [state-store] are refused too, naming where they are, with the mapping', async (t) => {
  const home = await TempHome.create(t);
  for (const [text, section] of [
    ['[evm]\nevm-ss-write-mode = "split_write"\n', 'evm'],
    ['evm-ss-read-mode = "split_read"\n[state-store]\nss-backend = "pebbledb"\n', ''],
    ['[state-commit]\nevm_ss_write_mode = "split_write"\nevm-ss-read-mode = "split_read"\n', 'state-commit'],
  ] as const) {
    const error = await rejection(() => home.load({ app: text }));
    t.ok(error instanceof LegacyConfigKeyError, String(error));
    t.equal((error as LegacyConfigKeyError).section, section);
    t.match((error as Error).message, section === '' ? 'config/app.toml evm-ss-read-mode' : `config/app.toml [${section}] `);
    t.match((error as Error).message, 'Mapping: evm-ss-write-mode = "split_write" together with evm-ss-read-mode = "split_read" is evm-ss-split = true');
  }
});

t.test('splitEquivalentOfLegacyModes', async (t) => {
  t.equal(splitEquivalentOfLegacyModes('split_write', 'split_read'), true);
  t.equal(splitEquivalentOfLegacyModes('dual_write', 'split_read'), false);
  t.equal(splitEquivalentOfLegacyModes('split_write', 'evm_first'), false);
  t.equal(splitEquivalentOfLegacyModes(undefined, undefined), false);
});
