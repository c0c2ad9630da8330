/**
 * The SS state at a committed height, with the values already read remembered across tasks.
 * A stored height never changes, so calls at the same height (the common case: every call at
 * `latest` until the next block) share the contract code, the accounts and the slots the
 * ones before them read instead of each asking RocksDB again.
 */
import type { StateView } from '../../evm/state-manager.js';
import { latin1 } from '../../util/latin1.js';

/** Values remembered per height before the memory is dropped and starts again. */
const MAX_REMEMBERED = 100_000;
/** Heights whose views are kept (calls at `latest` and a few recent heights). */
const MAX_HEIGHTS = 4;

/** A view of one stored height that remembers what it read (absent keys too). */
class RememberingView implements StateView {
  readonly #values = new Map<string, Uint8Array | null>();

  constructor(private readonly inner: StateView) {}

  get(store: string, key: Uint8Array): Uint8Array | undefined {
    const id = store + '\u0000' + latin1(key);
    const known = this.#values.get(id);
    if (known !== undefined) return known ?? undefined;
    const value = this.inner.get(store, key);
    if (this.#values.size >= MAX_REMEMBERED) this.#values.clear();
    this.#values.set(id, value ?? null);
    return value;
  }
}

/** Remembering views of the stored heights tasks read, the most recent few kept. */
export class HeightViews {
  readonly #views = new Map<number, RememberingView>();

  /** `open(height)` gives the unremembering SS view of a height. */
  constructor(private readonly open: (height: number) => StateView) {}

  /** The view of stored height `height`. */
  at(height: number): StateView {
    let view = this.#views.get(height);
    if (view === undefined) {
      if (this.#views.size >= MAX_HEIGHTS) this.#views.delete(this.#views.keys().next().value!);
      view = new RememberingView(this.open(height));
      this.#views.set(height, view);
    }
    return view;
  }
}
