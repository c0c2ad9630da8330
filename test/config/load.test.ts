/**
 * loadConfig(home) on real directories: a missing file names its path and `stratad init`;
 * a file that is not TOML names the line; unknown keys and sections come back as warnings
 * (with a "did you mean" where the key is a misspelling) instead of failing the load.
 */
import t from 'tap';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  ConfigFileError,
  ConfigFileNotFoundError,
  ConfigSyntaxError,
  configPaths,
  loadConfig,
} from '../../src/config/index.js';
import { rejection, TempHome } from './fixtures/home.js';

t.test('configPaths names the two files under {home}/config', async (t) => {
  t.same(configPaths('/srv/node'), { app: '/srv/node/config/app.toml', node: '/srv/node/config/config.toml' });
});

t.test('a missing app.toml names the path and stratad init', async (t) => {
  const home = await TempHome.create(t, { node: '' });
  const error = await rejection(() => loadConfig(home.dir));
  t.ok(error instanceof ConfigFileNotFoundError, String(error));
  if (!(error instanceof ConfigFileNotFoundError)) return;
  t.equal(error.path, home.path('app.toml'));
  t.equal(error.home, home.dir);
  t.match(error.message, home.path('app.toml'), 'names the path');
  t.match(error.message, `stratad init --chain-id <chain_id> <moniker> --home ${home.dir}`, 'says how to create it');
});

t.test('a missing config.toml names its path', async (t) => {
  const home = await TempHome.create(t, { app: '' });
  const error = await rejection(() => loadConfig(home.dir));
  t.ok(error instanceof ConfigFileNotFoundError, String(error));
  t.match(error instanceof Error ? error.message : '', home.path('config.toml'));
  t.match(error instanceof Error ? error.message : '', 'stratad init');
});

t.test('a home without config/ at all reports app.toml first', async (t) => {
  const home = await TempHome.create(t, {});
  await rm(join(home.dir, 'config'), { recursive: true });
  const error = await rejection(() => loadConfig(home.dir));
  t.ok(error instanceof ConfigFileNotFoundError && error.path === home.path('app.toml'), String(error));
});

t.test('a home that does not exist is a missing file too', async (t) => {
  const home = await TempHome.create(t, {});
  const error = await rejection(() => loadConfig(join(home.dir, 'nope')));
  t.ok(error instanceof ConfigFileNotFoundError, String(error));
});

t.test('a directory where the file should be is a readable error, not a crash', async (t) => {
  const home = await TempHome.create(t, { node: '' });
  await mkdir(home.path('app.toml'));
  const error = await rejection(() => loadConfig(home.dir));
  t.ok(error instanceof ConfigFileError && !(error instanceof ConfigFileNotFoundError), String(error));
  t.match(error instanceof Error ? error.message : '', `cannot read ${home.path('app.toml')}`);
  t.match(error instanceof Error ? error.message : '', 'check that it is a readable file');
});

t.test('invalid TOML names the file, line and column', async (t) => {
  const home = await TempHome.create(t);
  await home.write({ node: 'moniker = "a"\nlog_level = \n' });
  const error = await rejection(() => loadConfig(home.dir));
  t.ok(error instanceof ConfigSyntaxError, String(error));
  if (!(error instanceof ConfigSyntaxError)) return;
  t.equal(error.path, home.path('config.toml'));
  t.equal(error.line, 2);
  t.match(error.message, `${home.path('config.toml')}:2:`);
  t.match(error.message, 'not valid TOML');

  await home.write({ app: '[state-store]\nss-backend = "pebbledb"\nss-backend = "rocksdb"\n', node: '' });
  const duplicate = await rejection(() => loadConfig(home.dir));
  t.ok(duplicate instanceof ConfigSyntaxError && duplicate.line === 3, `a key set twice is refused at its second line (${String(duplicate)})`);
});

t.test('unknown keys and sections are warnings, not errors', async (t) => {
  const home = await TempHome.create(t);
  const loaded = await home.load({
    app: [
      'minimum-gas-prices = "0usei"',
      '[api]',
      'enable = true',
      '[state-store]',
      'ss-backend = "rocksdb"',
      'ss-hash-range = 1000000',
      'ss_keep_recent = 5',
      '[state-commit.flatkv]',
      'fsync = false',
      '[evm]',
      'http_port = 9545',
    ].join('\n'),
    node: ['proxy-app = "tcp://127.0.0.1:26658"', 'moniker = "n1"', '[p2p]', 'seeds = ""', '[tx-index]', 'indexer = "kv"'].join('\n'),
  });
  t.equal(loaded.app.stateStore.backend, 'rocksdb', 'known keys still apply');
  t.equal(loaded.app.stateStore.keepRecent, 100000, 'a misspelt key does not apply');
  t.equal(loaded.app.evm.httpPort, 8545, 'http_port is not http-port in app.toml');
  t.equal(loaded.node.moniker, 'n1');
  t.same(
    loaded.warnings.map((warning) => warning.message),
    [
      'config/app.toml minimum-gas-prices: unknown key, ignored',
      'config/app.toml api: unknown section, ignored',
      'config/app.toml [state-commit] flatkv: unknown section, ignored',
      'config/app.toml [state-store] ss-hash-range: unknown key, ignored',
      'config/app.toml [state-store] ss_keep_recent: unknown key, ignored (did you mean "ss-keep-recent"?)',
      'config/app.toml [evm] http_port: unknown key, ignored (did you mean "http-port"?)',
      'config/config.toml proxy-app: unknown key, ignored',
      'config/config.toml tx-index: unknown section, ignored',
      'config/config.toml [p2p] seeds: unknown key, ignored',
    ],
  );
  const first = loaded.warnings[0];
  t.same(first && { file: first.file, section: first.section, key: first.key }, { file: 'config/app.toml', section: '', key: 'minimum-gas-prices' }, 'warnings are located like errors');
});
