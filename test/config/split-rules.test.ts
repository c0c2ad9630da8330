/**
 * The EVM state-store split rules of app.toml: `evm-ss-split = true` requires `sc-enable` and
 * `ss-enable`; `ss-backend` is the one backend setting (per-EVM overrides are ignored with a
 * warning); `evm-ss-separate-dbs` without the split warns that it does nothing.
 */
import t from 'tap';
import { assertConfigError, rejection, TempHome } from './fixtures/home.js';

const FILE = 'config/app.toml';

function app(stateCommit: string[], stateStore: string[]): string {
  return ['[state-commit]', ...stateCommit, '[state-store]', ...stateStore].join('\n');
}

t.test('the split loads with both layers on, for either backend and DB layout', async (t) => {
  const home = await TempHome.create(t);
  for (const backend of ['pebbledb', 'rocksdb']) {
    for (const separate of [false, true]) {
      const loaded = await home.load({
        app: app(['sc-enable = true'], ['ss-enable = true', 'evm-ss-split = true', `evm-ss-separate-dbs = ${separate}`, `ss-backend = "${backend}"`]),
      });
      t.equal(loaded.app.stateStore.evmSsSplit, true);
      t.equal(loaded.app.stateStore.backend, backend, `${backend}: one backend for the Cosmos SS and the EVM SS`);
      t.equal(loaded.app.stateStore.evmSsSeparateDbs, separate);
      t.same(loaded.warnings, [], 'no warnings');
    }
  }
});

t.test('the split with defaults for sc-enable and ss-enable loads (both default to true)', async (t) => {
  const home = await TempHome.create(t);
  const loaded = await home.load({ app: '[state-store]\nevm-ss-split = true\n' });
  t.equal(loaded.app.stateCommit.enable, true);
  t.equal(loaded.app.stateStore.enable, true);
});

t.test('the split with ss-enable = false is refused, naming ss-enable', async (t) => {
  const home = await TempHome.create(t);
  const error = await rejection(() => home.load({ app: app([], ['ss-enable = false', 'evm-ss-split = true']) }));
  assertConfigError(t, error, {
    file: FILE,
    section: 'state-store',
    key: 'ss-enable',
    allowed: 'true while [state-store] evm-ss-split = true',
    found: 'false',
    mentions: 'set ss-enable = true in [state-store], or set evm-ss-split = false in [state-store]',
  });
});

t.test('the split with sc-enable = false is refused, naming sc-enable', async (t) => {
  const home = await TempHome.create(t);
  const error = await rejection(() => home.load({ app: app(['sc-enable = false'], ['evm-ss-split = true']) }));
  assertConfigError(t, error, {
    file: FILE,
    section: 'state-commit',
    key: 'sc-enable',
    allowed: 'true while [state-store] evm-ss-split = true',
    found: 'false',
    mentions: 'set sc-enable = true in [state-commit], or set evm-ss-split = false in [state-store]',
  });
});

t.test('sc-enable = false or ss-enable = false is refused without the split too: this node needs both', async (t) => {
  const home = await TempHome.create(t);
  for (const [commit, store, section, key] of [
    [['sc-enable = false'], ['ss-enable = false', 'evm-ss-split = false'], 'state-commit', 'sc-enable'],
    [[], ['ss-enable = false'], 'state-store', 'ss-enable'],
  ] as const) {
    const error = await rejection(() => home.load({ app: app([...commit], [...store]) }));
    assertConfigError(t, error, {
      file: 'config/app.toml',
      section,
      key,
      allowed: 'true',
      found: 'false',
      mentions: `this node needs both the state commitment (sc-enable) and the state store (ss-enable)`,
    });
    t.match((error as Error).message, `Set ${key} = true in [${section}]`);
  }
});

t.test('evm-ss-separate-dbs without the split warns that it has no effect', async (t) => {
  const home = await TempHome.create(t);
  const loaded = await home.load({ app: app([], ['evm-ss-separate-dbs = true']) });
  t.equal(loaded.warnings.length, 1);
  t.same(
    loaded.warnings.map((warning) => [warning.section, warning.key, warning.message]),
    [['state-store', 'evm-ss-separate-dbs', 'config/app.toml [state-store] evm-ss-separate-dbs: has no effect while evm-ss-split = false (there is no EVM SS to divide)']],
  );
});

t.test('per-EVM backend or directory overrides are ignored with a warning saying why', async (t) => {
  const home = await TempHome.create(t);
  const loaded = await home.load({
    app: app([], ['ss-backend = "pebbledb"', 'evm-ss-split = true', 'evm-ss-backend = "rocksdb"', 'evm-ss-db-directory = "/fast/evm"']),
  });
  t.equal(loaded.app.stateStore.backend, 'pebbledb', 'ss-backend alone decides, for the EVM SS too');
  const byKey = new Map(loaded.warnings.map((warning) => [warning.key, warning.message]));
  t.match(byKey.get('evm-ss-backend') ?? '', 'ss-backend selects the backend of the Cosmos SS and of every EVM SS sub-DB');
  t.match(byKey.get('evm-ss-db-directory') ?? '', 'the EVM SS always lives in data/evm_ss/');
  t.equal(loaded.warnings.length, 2, 'one warning each, not a second "unknown key" one');
});
