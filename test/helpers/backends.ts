import type { Backend } from '../../src/store/index.js';

/** Both on-disk layouts; every store test runs against each. */
export const BACKENDS: readonly Backend[] = ['pebbledb', 'rocksdb'];

/** The other layout, for layout-mismatch tests. */
export function otherBackend(backend: Backend): Backend {
  return backend === 'pebbledb' ? 'rocksdb' : 'pebbledb';
}

