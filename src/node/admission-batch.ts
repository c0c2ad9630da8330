/**
 * Admission of a JSON-RPC batch's transactions together: the eth_sendRawTransaction calls of
 * one batch arrive in one synchronous run of the dispatcher, so the raw transactions gathered
 * until the next microtask are exactly that batch. Their senders are recovered in one native
 * batch; then each goes through admission on its own, one after another in the batch's order
 * (so a sender's consecutive nonces in one batch are all admitted), with its own answer or error.
 */

/** Gathers the raw transactions sent in one turn, prepares them together, admits them in order. */
export class AdmissionBatch {
  readonly #prepare: (raws: readonly Uint8Array[]) => Promise<void>;
  #gathered: Uint8Array[] = [];
  #ready: Promise<void> | undefined;
  /** Settles when the last admission queued so far has settled. */
  #tail: Promise<unknown> = Promise.resolve();

  /** `prepare` decodes and recovers a batch (App.prepareTxs); its failures are left to admission. */
  constructor(prepare: (raws: readonly Uint8Array[]) => Promise<void>) {
    this.#prepare = prepare;
  }

  /** Runs `admit` for `raw` once its batch is prepared and every earlier admission has settled. */
  admit<T>(raw: Uint8Array, admit: () => Promise<T>): Promise<T> {
    this.#gathered.push(raw);
    this.#ready ??= Promise.resolve().then(() => {
      const raws = this.#gathered;
      this.#gathered = [];
      this.#ready = undefined;
      // A lone transaction is decoded by admission itself: a thread hop would only add latency.
      if (raws.length < 2) return undefined;
      return this.#prepare(raws).catch(() => undefined);
    });
    const ready = this.#ready;
    const turn = this.#tail.then(() => ready).then(admit);
    this.#tail = turn.catch(() => undefined);
    return turn;
  }
}
