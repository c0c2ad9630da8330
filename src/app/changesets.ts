/** Combining the changesets of consecutive state transitions into one. */
import type { KVPair, NamedChangeset } from '../store/index.js';

/** `first` then `second` as one changeset list: per store and key the later value wins; keys sorted. */
export function mergeChangesets(first: readonly NamedChangeset[], second: readonly NamedChangeset[]): NamedChangeset[] {
  const stores = new Map<string, Map<string, KVPair>>();
  for (const changeset of [...first, ...second]) {
    let pairs = stores.get(changeset.name);
    if (!pairs) stores.set(changeset.name, (pairs = new Map()));
    for (const pair of changeset.pairs) pairs.set(Buffer.from(pair.key).toString('latin1'), pair);
  }
  return [...stores.keys()].sort().map((name) => ({
    name,
    pairs: [...stores.get(name)!.values()].sort((a, b) => Buffer.compare(a.key, b.key)),
  }));
}
