/**
 * Test switch, read only by the app-hash mismatch test (test/sync/app-hash-mismatch.test.ts):
 * STRATA_TEST_PERTURB_BALANCE_AT=<height> makes this process write one balance of that block
 * one wei off, so its state diverges from the chain's the way a faulty node's would.
 */
import { BANK_STORE } from '../evm/keys.js';
import type { NamedChangeset } from '../store/index.js';

const PERTURB_AT = ((): number | undefined => {
  const value = process.env.STRATA_TEST_PERTURB_BALANCE_AT;
  if (!value) return undefined;
  const height = Number(value);
  if (!Number.isSafeInteger(height) || height < 1) throw new Error(`STRATA_TEST_PERTURB_BALANCE_AT must be a block height, got "${value}"`);
  return height;
})();

/** The changesets of block `height`, with one balance write changed when the test switch names that height. */
export function perturbedForTest(height: number, changesets: NamedChangeset[]): NamedChangeset[] {
  if (PERTURB_AT !== height) return changesets;
  let done = false;
  return changesets.map((cs) => {
    if (done || cs.name !== BANK_STORE) return cs;
    return {
      name: cs.name,
      pairs: cs.pairs.map((pair) => {
        if (done || pair.value === null || pair.value.length === 0) return pair;
        done = true;
        const value = Buffer.from(pair.value);
        value[value.length - 1] = value[value.length - 1]! ^ 1;
        return { key: pair.key, value };
      }),
    };
  });
}
