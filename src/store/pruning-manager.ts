/**
 * The pruning manager: every `ss-prune-interval` seconds, plus a random 0–100 % jitter, prunes
 * a state store to `latest − ss-keep-recent` (keep-recent 0 keeps everything).
 */
import type { Logger } from '../log/logger.js';
import type { PruneResult, Version } from './state-store.js';

/** What the manager prunes. */
export interface Prunable {
  latestVersion(): Version;
  prune(version: Version): Promise<PruneResult>;
}

/** Settings of the manager. */
export interface PruningOptions {
  /** `ss-keep-recent`: versions to keep; 0 disables pruning. */
  keepRecent: number;
  /** `ss-prune-interval` in seconds; 0 disables pruning. */
  intervalSeconds: number;
  /** Source of the jitter, in [0, 1); Math.random by default. */
  random?: () => number;
}

/** Runs prune passes in the background until stopped. */
export class PruningManager {
  readonly #target: Prunable;
  readonly #options: PruningOptions;
  readonly #logger: Logger;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;

  constructor(target: Prunable, options: PruningOptions, logger: Logger) {
    this.#target = target;
    this.#options = options;
    this.#logger = logger;
  }

  /** Whether the settings ask for pruning at all. */
  get enabled(): boolean {
    return this.#options.keepRecent > 0 && this.#options.intervalSeconds > 0;
  }

  /** Schedules the first pass; a no-op when pruning is disabled. */
  start(): void {
    if (!this.enabled || this.#stopped) return;
    this.#schedule();
  }

  /** One prune pass now: prunes to latest − keepRecent when that is positive. */
  async pruneOnce(): Promise<PruneResult | undefined> {
    const latest = BigInt(this.#target.latestVersion());
    const version = latest - BigInt(this.#options.keepRecent);
    if (this.#options.keepRecent <= 0 || version <= 0n) return undefined;
    const started = Date.now();
    try {
      const result = await this.#target.prune(version);
      this.#logger.info('Pruned state store till version', { version, took: `${Date.now() - started}ms`, versionsDeleted: result.versionsDeleted });
      return result;
    } catch (error) {
      this.#logger.error('failed to prune versions till', { version, err: error instanceof Error ? error.message : String(error) });
      return undefined;
    }
  }

  /** Stops scheduling and waits for a pass in progress. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    await this.#running;
    if (this.enabled) this.#logger.info('Pruning manager stopped');
  }

  #schedule(): void {
    const random = this.#options.random ?? Math.random;
    const delayMs = this.#options.intervalSeconds * 1000 * (1 + random());
    this.#timer = setTimeout(() => {
      this.#running = this.pruneOnce().then(() => {
        this.#running = undefined;
        if (!this.#stopped) this.#schedule();
      });
    }, delayMs);
    this.#timer.unref();
  }
}
