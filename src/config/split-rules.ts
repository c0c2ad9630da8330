/**
 * The spec's rules for the EVM state-store split, checked across keys of `app.toml`:
 * `evm-ss-split = true` needs `sc-enable` and `ss-enable`; `ss-backend` alone picks the backend
 * of the Cosmos SS and of every EVM SS sub-DB; the EVM SS always lives under `data/evm_ss/`.
 */
import type { AppConfig } from './app-config.js';
import { ConfigError } from './errors.js';
import type { FileContext } from './section-reader.js';
import type { TomlTable } from './toml-value.js';
import { configWarning } from './warnings.js';

/**
 * `[state-store]` keys that other releases use to point the EVM SS elsewhere. Here they would
 * silently do nothing, so each gets a warning that says why.
 */
const EVM_SS_OVERRIDES: ReadonlyMap<string, string> = new Map([
  ['evm-ss-backend', 'ignored: ss-backend selects the backend of the Cosmos SS and of every EVM SS sub-DB'],
  ['evm-ss-db-backend', 'ignored: ss-backend selects the backend of the Cosmos SS and of every EVM SS sub-DB'],
  ['evm-ss-db-directory', 'ignored: the EVM SS always lives in data/evm_ss/ under the node home'],
  ['ss-db-directory', 'ignored: the Cosmos SS always lives in data/<ss-backend>/ under the node home'],
]);

/** Warns about EVM SS override keys in `[state-store]`; returns the keys it handled. */
export function warnEvmSsOverrides(ctx: FileContext, stateStore: TomlTable): ReadonlySet<string> {
  const handled = new Set<string>();
  for (const key of Object.keys(stateStore)) {
    const why = EVM_SS_OVERRIDES.get(key);
    if (why === undefined) continue;
    handled.add(key);
    ctx.warnings.push(configWarning({ file: ctx.file, section: 'state-store', key }, why));
  }
  return handled;
}

/**
 * Throws when the state commitment or the state store is turned off: this node cannot run
 * without either (the SC is the app hash, the SS every historical read), so `false` is
 * refused rather than accepted and ignored.
 */
function requireBothStores(ctx: FileContext, config: AppConfig): void {
  const off = !config.stateCommit.enable
    ? { section: 'state-commit', key: 'sc-enable' }
    : !config.stateStore.enable
      ? { section: 'state-store', key: 'ss-enable' }
      : undefined;
  if (off === undefined) return;
  throw new ConfigError({
    file: ctx.file,
    ...off,
    allowed: 'true',
    found: 'false',
    detail: 'this node needs both the state commitment (sc-enable) and the state store (ss-enable); it cannot run with either turned off',
    remedy: `Set ${off.key} = true in [${off.section}] (or remove the key: true is the default)`,
  });
}

/** Throws when the SC or SS is off or `evm-ss-split = true` lacks a prerequisite; warns about settings without effect. */
export function checkSplitRules(ctx: FileContext, config: AppConfig): void {
  const { stateCommit, stateStore } = config;
  if (stateStore.evmSsSplit) {
    const remedy = (key: string, section: string): string =>
      `The EVM state-store split needs sc-enable = true and ss-enable = true: set ${key} = true in [${section}], ` +
      `or set evm-ss-split = false in [state-store]`;
    if (!stateCommit.enable) {
      throw new ConfigError({
        file: ctx.file,
        section: 'state-commit',
        key: 'sc-enable',
        allowed: 'true while [state-store] evm-ss-split = true',
        found: 'false',
        remedy: remedy('sc-enable', 'state-commit'),
      });
    }
    if (!stateStore.enable) {
      throw new ConfigError({
        file: ctx.file,
        section: 'state-store',
        key: 'ss-enable',
        allowed: 'true while [state-store] evm-ss-split = true',
        found: 'false',
        remedy: remedy('ss-enable', 'state-store'),
      });
    }
  }
  requireBothStores(ctx, config);
  if (stateStore.evmSsSeparateDbs && !stateStore.evmSsSplit) {
    ctx.warnings.push(
      configWarning(
        { file: ctx.file, section: 'state-store', key: 'evm-ss-separate-dbs' },
        'has no effect while evm-ss-split = false (there is no EVM SS to divide)',
      ),
    );
  }
}
