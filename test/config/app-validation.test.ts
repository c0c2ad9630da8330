/**
 * app.toml validation: every bad value (wrong TOML type, out of range, unknown enum value, bad
 * duration, bad address) is refused with a ConfigError naming the file, the section, the key,
 * what is allowed and what was found. Each case is written to a real node home and loaded.
 */
import t from 'tap';
import { ConfigError } from '../../src/config/index.js';
import { assertConfigError, rejection, TempHome, type ExpectedConfigError } from './fixtures/home.js';

const FILE = 'config/app.toml';

interface Case {
  name: string;
  section: string;
  line: string;
  expected: Omit<ExpectedConfigError, 'file' | 'section'>;
}

const BOOL = 'true or false';
const DURATION_ABOVE_ZERO = 'a duration such as "300ms", "5s" or "2h45m", above 0s';
const PORT = 'an integer from 1 to 65535';

const CASES: Case[] = [
  // [state-commit]
  { name: 'boolean given as a string', section: 'state-commit', line: 'sc-enable = "true"', expected: { key: 'sc-enable', allowed: BOOL, found: '"true"', mentions: '(a string)' } },
  { name: 'boolean given as 1', section: 'state-commit', line: 'sc-enable = 1', expected: { key: 'sc-enable', allowed: BOOL, found: '1', mentions: '(an integer)' } },
  { name: 'negative keep-recent', section: 'state-commit', line: 'sc-keep-recent = -1', expected: { key: 'sc-keep-recent', allowed: 'an integer >= 0', found: '-1', message: `${FILE} [state-commit] sc-keep-recent: expected an integer >= 0; found -1` } },
  { name: 'writer limit of 0', section: 'state-commit', line: 'sc-snapshot-writer-limit = 0', expected: { key: 'sc-snapshot-writer-limit', allowed: 'an integer >= 1', found: '0' } },
  { name: 'float snapshot interval', section: 'state-commit', line: 'sc-snapshot-interval = 1.5', expected: { key: 'sc-snapshot-interval', allowed: 'an integer >= 0', found: '1.5', mentions: '(a float)' } },
  { name: 'integral float is still a float', section: 'state-commit', line: 'sc-snapshot-interval = 100.0', expected: { key: 'sc-snapshot-interval', allowed: 'an integer >= 0', found: '100.0', mentions: '(a float)' } },
  { name: 'quoted number', section: 'state-commit', line: 'sc-snapshot-min-time-interval = "3600"', expected: { key: 'sc-snapshot-min-time-interval', allowed: 'an integer >= 0', found: '"3600"', mentions: '(a string)' } },
  { name: 'negative write rate', section: 'state-commit', line: 'sc-snapshot-write-rate-mbps = -5', expected: { key: 'sc-snapshot-write-rate-mbps', allowed: 'an integer >= 0', found: '-5' } },
  { name: 'integer beyond 2^53', section: 'state-commit', line: 'sc-async-commit-buffer = 9007199254740993', expected: { key: 'sc-async-commit-buffer', allowed: 'an integer', found: '9007199254740993', mentions: '(too large)' } },
  // [state-store]
  {
    name: 'unknown backend',
    section: 'state-store',
    line: 'ss-backend = "leveldb"',
    expected: {
      key: 'ss-backend',
      allowed: 'one of "pebbledb", "rocksdb"',
      found: '"leveldb"',
      message: 'config/app.toml [state-store] ss-backend: expected one of "pebbledb", "rocksdb"; found "leveldb"',
    },
  },
  { name: 'backend names are case-sensitive', section: 'state-store', line: 'ss-backend = "RocksDB"', expected: { key: 'ss-backend', allowed: 'one of "pebbledb", "rocksdb"', found: '"RocksDB"' } },
  { name: 'backend given as a number', section: 'state-store', line: 'ss-backend = 1', expected: { key: 'ss-backend', allowed: 'one of "pebbledb", "rocksdb"', found: '1', mentions: '(an integer)' } },
  { name: 'split given as a string', section: 'state-store', line: 'evm-ss-split = "true"', expected: { key: 'evm-ss-split', allowed: BOOL, found: '"true"' } },
  { name: 'separate-dbs given as yes', section: 'state-store', line: 'evm-ss-separate-dbs = "yes"', expected: { key: 'evm-ss-separate-dbs', allowed: BOOL, found: '"yes"' } },
  { name: 'ss-enable given as an array', section: 'state-store', line: 'ss-enable = [true]', expected: { key: 'ss-enable', allowed: BOOL, found: '[true]', mentions: '(an array)' } },
  { name: 'negative ss-keep-recent', section: 'state-store', line: 'ss-keep-recent = -1', expected: { key: 'ss-keep-recent', allowed: 'an integer >= 0', found: '-1' } },
  { name: 'quoted ss-keep-recent', section: 'state-store', line: 'ss-keep-recent = "100000"', expected: { key: 'ss-keep-recent', allowed: 'an integer >= 0', found: '"100000"' } },
  { name: 'prune interval of 0', section: 'state-store', line: 'ss-prune-interval = 0', expected: { key: 'ss-prune-interval', allowed: 'an integer >= 1', found: '0' } },
  { name: 'float write buffer', section: 'state-store', line: 'ss-async-write-buffer = 1.5', expected: { key: 'ss-async-write-buffer', allowed: 'an integer', found: '1.5' } },
  // [evm]
  { name: 'port 0', section: 'evm', line: 'http-port = 0', expected: { key: 'http-port', allowed: PORT, found: '0' } },
  { name: 'port above 65535', section: 'evm', line: 'http-port = 70000', expected: { key: 'http-port', allowed: PORT, found: '70000' } },
  { name: 'quoted port', section: 'evm', line: 'ws-port = "8546"', expected: { key: 'ws-port', allowed: PORT, found: '"8546"' } },
  { name: 'address with a scheme', section: 'evm', line: 'http-address = "http://127.0.0.1"', expected: { key: 'http-address', allowed: 'an IP address or host name, e.g. "127.0.0.1"', found: '"http://127.0.0.1"' } },
  { name: 'empty address', section: 'evm', line: 'http-address = ""', expected: { key: 'http-address', allowed: 'an IP address or host name, e.g. "127.0.0.1"', found: '""' } },
  { name: 'http-enabled as a string', section: 'evm', line: 'http-enabled = "false"', expected: { key: 'http-enabled', allowed: BOOL, found: '"false"' } },
  { name: 'ws-enabled as 0', section: 'evm', line: 'ws-enabled = 0', expected: { key: 'ws-enabled', allowed: BOOL, found: '0' } },
  { name: 'zero body size', section: 'evm', line: 'max-body-bytes = 0', expected: { key: 'max-body-bytes', allowed: 'an integer >= 1', found: '0' } },
  { name: 'zero batch size', section: 'evm', line: 'max-batch-size = 0', expected: { key: 'max-batch-size', allowed: 'an integer >= 1', found: '0' } },
  { name: 'negative concurrency', section: 'evm', line: 'max-concurrent-requests = -1', expected: { key: 'max-concurrent-requests', allowed: 'an integer >= 1', found: '-1' } },
  { name: 'zero log range', section: 'evm', line: 'max-log-block-range = 0', expected: { key: 'max-log-block-range', allowed: 'an integer >= 1', found: '0' } },
  { name: 'zero concurrent traces', section: 'evm', line: 'max-concurrent-traces = 0', expected: { key: 'max-concurrent-traces', allowed: 'an integer >= 1', found: '0' } },
  { name: 'zero struct-log cap', section: 'evm', line: 'max-struct-log-bytes = 0', expected: { key: 'max-struct-log-bytes', allowed: 'an integer >= 1', found: '0' } },
  { name: 'negative gas cap', section: 'evm', line: 'gas-cap = -1', expected: { key: 'gas-cap', allowed: 'an integer >= 0', found: '-1' } },
  { name: 'duration without unit', section: 'evm', line: 'trace-timeout = "5"', expected: { key: 'trace-timeout', allowed: DURATION_ABOVE_ZERO, found: '"5"', mentions: 'missing unit' } },
  { name: 'duration with unknown unit', section: 'evm', line: 'trace-timeout = "5d"', expected: { key: 'trace-timeout', allowed: DURATION_ABOVE_ZERO, found: '"5d"', mentions: 'unknown unit "d"' } },
  { name: 'duration in words', section: 'evm', line: 'trace-timeout = "fast"', expected: { key: 'trace-timeout', allowed: DURATION_ABOVE_ZERO, found: '"fast"' } },
  { name: 'duration as a bare integer', section: 'evm', line: 'trace-timeout = 5', expected: { key: 'trace-timeout', allowed: DURATION_ABOVE_ZERO, found: '5', mentions: '(an integer)' } },
  { name: 'zero trace timeout', section: 'evm', line: 'trace-timeout = "0s"', expected: { key: 'trace-timeout', allowed: DURATION_ABOVE_ZERO, found: '"0s"', mentions: '(zero)' } },
  { name: 'negative trace timeout', section: 'evm', line: 'trace-timeout = "-1s"', expected: { key: 'trace-timeout', allowed: DURATION_ABOVE_ZERO, found: '"-1s"', mentions: '(negative)' } },
];

t.test('every invalid value is refused with file, section, key, allowed and found', async (t) => {
  const home = await TempHome.create(t);
  for (const testCase of CASES) {
    await t.test(`[${testCase.section}] ${testCase.name}`, async (t) => {
      const error = await rejection(() => home.load({ app: `[${testCase.section}]\n${testCase.line}\n` }));
      assertConfigError(t, error, { file: FILE, section: testCase.section, ...testCase.expected });
    });
  }
});

t.test('a section given as a plain value is refused', async (t) => {
  const home = await TempHome.create(t);
  const error = await rejection(() => home.load({ app: 'state-store = 5\n' }));
  assertConfigError(t, error, { file: FILE, section: '', key: 'state-store', allowed: 'a table (a [state-store] section)', found: '5' });
  t.match(error instanceof ConfigError ? error.message : '', /^config\/app\.toml state-store: /, 'top-level keys are named without a section');
});

t.test('valid edge values are accepted', async (t) => {
  const home = await TempHome.create(t);
  const loaded = await home.load({
    app: [
      '[state-commit]',
      'sc-keep-recent = 0',
      'sc-async-commit-buffer = -5',
      '[state-store]',
      'ss-keep-recent = 0',
      'ss-async-write-buffer = 0',
      'ss-prune-interval = 1',
      '[evm]',
      'http-port = 65535',
      'ws-port = 1',
      'http-address = "::1"',
      'trace-timeout = "1ns"',
      'gas-cap = 0',
    ].join('\n'),
  });
  t.equal(loaded.app.stateCommit.keepRecent, 0);
  t.equal(loaded.app.stateCommit.asyncCommitBuffer, -5, 'a negative commit buffer means synchronous commits');
  t.equal(loaded.app.stateStore.keepRecent, 0, 'ss-keep-recent = 0 keeps every version');
  t.equal(loaded.app.stateStore.asyncWriteBuffer, 0);
  t.equal(loaded.app.evm.httpPort, 65535);
  t.equal(loaded.app.evm.wsPort, 1);
  t.equal(loaded.app.evm.httpAddress, '::1');
  t.equal(loaded.app.evm.traceTimeout.nanoseconds, 1n);
  t.equal(loaded.app.evm.gasCap, 0);
});
