/** Public API of the split migration: `stratad migrate evm-ss-split` and its `--disable`. */
export { describeDisable, planDisable, runDisable, type DisablePlan } from './disable.js';
export { MigrationRefusedError, MigrationStepError, TrustedRpcError } from './errors.js';
export { describePlan, planMigration, runMigration, type MigrateRequest, type MigrationPlan, type MigrationRunner } from './procedure.js';
export type { Reinitialise } from './home-rewrite.js';
export type { BackgroundNode, NodeLauncher } from './wait-for-ready.js';
