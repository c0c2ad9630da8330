/**
 * Store-level read footprints: a StateView that records what an execution read from each
 * module store, and a StateView that layers a block's earlier writes over a base state (so a
 * replayed transaction reads exactly the pre-state it saw in its block).
 */
import type { StateView } from '../../evm/state-manager.js';
import type { NamedChangeset } from '../../store/index.js';
import { plainHex } from '../../util/hex.js';

/** What one execution read from one module store: lower-case hex without 0x, "" for absent. */
export interface ModuleReads {
  /** key → value of every `get`, as first seen. */
  readonly reads: ReadonlyMap<string, string>;
  /** Keys asked about with `has`, in first-asked order. */
  readonly has: readonly string[];
}

/** A StateView that may also answer existence queries. */
export type ExistenceView = StateView & { has?(store: string, key: Uint8Array): boolean };

/** Forwards reads to a view and records the first value of every key read, per store. */
export class RecordingStateView implements StateView {
  readonly #view: ExistenceView;
  readonly #reads = new Map<string, Map<string, string>>();
  readonly #has = new Map<string, Set<string>>();

  constructor(view: ExistenceView) {
    this.#view = view;
  }

  get(store: string, key: Uint8Array): Uint8Array | undefined {
    const value = this.#view.get(store, key);
    let reads = this.#reads.get(store);
    if (!reads) this.#reads.set(store, (reads = new Map()));
    const id = plainHex(key);
    if (!reads.has(id)) reads.set(id, value === undefined ? '' : plainHex(value));
    return value;
  }

  has(store: string, key: Uint8Array): boolean {
    let asked = this.#has.get(store);
    if (!asked) this.#has.set(store, (asked = new Set()));
    asked.add(plainHex(key));
    return this.#view.has ? this.#view.has(store, key) : this.#view.get(store, key) !== undefined;
  }

  /** The footprint so far, per store name in sorted order. */
  footprint(): Map<string, ModuleReads> {
    const names = [...new Set([...this.#reads.keys(), ...this.#has.keys()])].sort();
    return new Map(names.map((name) => [name, { reads: this.#reads.get(name) ?? new Map(), has: [...(this.#has.get(name) ?? [])] }]));
  }
}

/** `base` with `changesets` applied on top (a null value deletes the key). */
export function viewWithChangesets(base: StateView, changesets: readonly NamedChangeset[]): StateView {
  const written = new Map<string, Map<string, Uint8Array | null>>();
  for (const { name, pairs } of changesets) {
    let store = written.get(name);
    if (!store) written.set(name, (store = new Map()));
    for (const { key, value } of pairs) store.set(plainHex(key), value);
  }
  return {
    get: (store, key) => {
      const overlay = written.get(store)?.get(plainHex(key));
      if (overlay === undefined) return base.get(store, key);
      return overlay ?? undefined;
    },
  };
}
