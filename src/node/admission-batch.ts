/**
 * Admission of a JSON-RPC batch's transactions together: the eth_sendRawTransaction calls of
 * one batch arrive in one synchronous run of the dispatcher, so the raw transactions gathered
 * until the next microtask are exactly that batch. Their senders are recovered in one native
 * batch before each goes through the mempool on its own, in the batch's order, with its own
 * answer or error.
 */

/** Gathers the raw transactions sent in one turn and prepares them together. */
export class AdmissionBatch {
  readonly #prepare: (raws: readonly Uint8Array[]) => Promise<void>;
  #gathered: Uint8Array[] = [];
  #ready: Promise<void> | undefined;

  /** `prepare` decodes and recovers a batch (App.prepareTxs); its failures are left to admission. */
  constructor(prepare: (raws: readonly Uint8Array[]) => Promise<void>) {
    this.#prepare = prepare;
  }

  /** Resolves once the batch `raw` belongs to is prepared; never rejects. */
  join(raw: Uint8Array): Promise<void> {
    this.#gathered.push(raw);
    this.#ready ??= Promise.resolve().then(() => {
      const raws = this.#gathered;
      this.#gathered = [];
      this.#ready = undefined;
      // A lone transaction is decoded by admission itself: a thread hop would only add latency.
      if (raws.length < 2) return undefined;
      return this.#prepare(raws).catch(() => undefined);
    });
    return this.#ready;
  }
}
