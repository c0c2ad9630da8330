/**
 * Admission of transactions that arrive together: those of one JSON-RPC batch, and the
 * eth_sendRawTransaction requests of every connection read in the same turn of the event loop
 * (gathered until setImmediate, which runs once that turn's I/O callbacks are done). Their
 * senders are recovered in one native batch on another thread while this one goes on
 * parsing requests; then each goes through admission on its own, one after another in arrival
 * order (so a sender's consecutive nonces are all admitted), with its own answer or error.
 */

/** Gathers the raw transactions sent in one event-loop turn, prepares them together, admits them in order. */
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
    this.#ready ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
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
