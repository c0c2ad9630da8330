/**
 * A pool of execution workers: each task runs on an idle worker thread, with a deadline from
 * the moment it is submitted. Tasks wait (boundedly) for a busy worker; but when every worker
 * has been running its task for a while (`LONG_TASK_MS`) and tasks wait, the pool grows, up to
 * `maxWorkers`, so a few long tasks (a call that loops until its deadline) cannot hold up the
 * short ones behind them. A burst of short tasks only queues: starting a worker costs more.
 * Workers beyond the base size leave once idle for a while.
 *
 * A task's caller gets its timeout error at the deadline. Its worker then has STOP_GRACE_MS to
 * give the task up on its own (the EVM stops a call at the deadline the task carries, see
 * evm/execution-deadline.ts); one still running it after that is terminated and replaced — the
 * only way to stop a loop that never yields — and so is one that throws or runs out of its
 * heap. Keeping the worker matters: each new one is a fresh V8 isolate, tens of MiB of memory
 * the process does not fully give back.
 *
 * A worker may hold up to `pipeline` tasks: while it runs one, the next ones are already in its
 * port, so it never idles waiting for the node to see a reply and post more (with short calls
 * that hand-over costs as much as the call). Only a worker whose current task is young gets
 * more; once its task turns long, the tasks behind it go back to the head of the queue (for
 * another worker, or one the pool adds) and the late answers of that worker to them are
 * ignored — tasks only read, so one running twice changes nothing.
 *
 * A task may carry an affinity: tasks of one key that arrive in ascending order go to the
 * worker that took the last of them, queued in its port behind the others, even while other
 * workers are idle. A worker keeps what a task of its key left behind (the replay of a block
 * paused after the traced transaction, see trace/replay/paused-replays.ts), so tracing a
 * block's transactions in order costs one transaction each there, and the replay of every
 * transaction before it on any other worker. A task that would go back in order goes where
 * any other task would; so do all once the worker's task turns long.
 */
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

import type { Logger } from '../../log/logger.js';
import { NO_THREAD_CPU, addThreadCpu, threadCpu, type ThreadCpu } from '../thread-cpu.js';
import { WORKER_READY, compactBytes, errorOf, type Task, type TaskBody, type WorkerHeap, type WorkerMessage, type WorkerSetup } from './protocol.js';
import { withFields } from '../../util/objects.js';

/** How many workers and how many tasks may wait. */
export interface WorkerPoolOptions {
  /** What the pool's workers run, for logs ("call", "trace"). */
  readonly name: string;
  /** Worker threads kept running (at least 1). */
  readonly workers: number;
  /** Most worker threads at once, when every one is busy (at least `workers`). */
  readonly maxWorkers: number;
  /** Tasks that may wait for a worker; more are refused with the caller's busy error. */
  readonly maxQueued: number;
  /** Tasks one worker may hold at once (its current one and those waiting in its port); default 1. */
  readonly pipeline?: number;
  /** Old-generation heap of each worker in MiB: a task that allocates more kills only its worker. */
  readonly heapMiB?: number;
  /** Young generation (V8's nursery) of each worker in MiB; V8's default lets it grow to 48 MiB. */
  readonly youngGenerationMiB?: number;
  /**
   * Young generation of the workers beyond the base size, MiB (default: `youngGenerationMiB`).
   * They exist only while every base worker is held by a long task, to keep short tasks moving,
   * so memory matters more for them than the last fraction of speed.
   */
  readonly burstYoungGenerationMiB?: number;
  readonly logger: Logger;
}

/** Which worker a task runs best on: the one that took the last task of `key` with a lower `order`. */
export interface Affinity {
  readonly key: string;
  readonly order: number;
}

/** A task's deadline: milliseconds from submission, and the error it fails with past it. */
export interface Deadline {
  readonly ms: number;
  readonly error: () => Error;
}

/** A submitted task and how to settle it. */
interface Pending {
  readonly task: Task;
  /** When a worker started it (performance.now()), once one has. */
  startedAt?: number;
  readonly deadline: Deadline;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
  readonly affinity: Affinity | undefined;
}

/** One worker thread and the tasks posted to it, oldest (the one it runs) first. */
interface Slot {
  worker: Worker;
  inflight: Pending[];
  /** Set while a worker beyond the base size is idle: it leaves when this fires. */
  retire: NodeJS.Timeout | undefined;
  /** False while its worker starts (it takes no task until it says it is ready). */
  ready: boolean;
  /** Set while its task is past the deadline: the worker is terminated when this fires. */
  overdue: NodeJS.Timeout | undefined;
  /** The worker's last heap report. */
  heap: WorkerHeap | undefined;
  /** The affinity of the last task it was given that had one. */
  affinity: Affinity | undefined;
  /** The worker's count of transactions replayed untraced, as its last reply gave it. */
  replayed: number;
  /** The worker's Linux thread id, from its first heap report (undefined until then, or off Linux). */
  threadId: number | undefined;
  /** The worker's CPU time when last read: what counts for it if its thread is gone by the next read. */
  cpu: ThreadCpu;
}

const DEFAULT_HEAP_MIB = 512;
/** A worker that dies this soon after it started is restarted only after a pause. */
const RESTART_PAUSE_MS = 1000;
/** How long a worker beyond the base size stays idle before it leaves. */
const EXTRA_IDLE_MS = 60_000;
/** A task running this long counts as long: if every worker runs one, tasks waiting get a new worker. */
const LONG_TASK_MS = 200;
/** How long past its task's deadline a worker may take to give the task up before it is terminated. */
const STOP_GRACE_MS = 1000;
/** Tasks one worker may hold for their affinity (more than the pipeline allows). */
const AFFINITY_DEPTH = 16;

/** The worker's source beside this file: `.js` when built, `.ts` when run from source under tsx. */
const WORKER_URL = new URL(`./worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url);

/**
 * A worker of the source tree (tests, `--import tsx`) needs tsx registered inside it: Node 20
 * does not carry the main thread's module hooks into a worker, so it starts from a bootstrap.
 */
function workerEntry(): { entry: string | URL; eval: boolean } {
  if (!WORKER_URL.pathname.endsWith('.ts')) return { entry: WORKER_URL, eval: false };
  const bootstrap = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(WORKER_URL.href)}); });`;
  return { entry: bootstrap, eval: true };
}

/** Terminates `worker`, which no longer reports anything. */
function stop(worker: Worker): void {
  worker.removeAllListeners();
  worker.on('error', () => undefined);
  void worker.terminate();
}

/** Thrown when the queue is full; the caller's own busy error replaces it. */
export class PoolFullError extends Error {
  constructor(readonly queued: number) {
    super(`${queued} tasks are waiting for an execution worker`);
    this.name = 'PoolFullError';
  }
}

/** Worker threads running tasks one at a time each. */
export class WorkerPool {
  readonly #setup: WorkerSetup;
  readonly #options: WorkerPoolOptions;
  readonly #slots: Slot[] = [];
  readonly #queue: Pending[] = [];
  #nextId = 1;
  #closed = false;
  #started = 0;
  #replayed = 0;
  /** CPU time of the workers replaced or retired so far. */
  #pastCpu: ThreadCpu = NO_THREAD_CPU;
  /** Armed while tasks wait: the one periodic check whether the pool should grow. */
  #growCheck: NodeJS.Timeout | undefined;
  readonly #readyWaiters: Array<() => void> = [];

  constructor(setup: WorkerSetup, options: WorkerPoolOptions) {
    this.#setup = setup;
    this.#options = options;
    for (let i = 0; i < Math.max(1, options.workers); i++) this.#addSlot();
  }

  /** Resolves once every worker has started (loaded its code and made a VM). */
  ready(): Promise<void> {
    if (this.#slots.every((slot) => slot.ready)) return Promise.resolve();
    return new Promise((resolve) => this.#readyWaiters.push(resolve));
  }

  /** Worker threads running now. */
  get size(): number {
    return this.#slots.length;
  }

  /** Tasks running on a worker or posted to one now. */
  get running(): number {
    return this.#slots.reduce((sum, slot) => sum + slot.inflight.length, 0);
  }

  /** Tasks waiting for a worker. */
  get queued(): number {
    return this.#queue.length;
  }

  /** The V8 heaps of the running workers, summed from their last reports. */
  get heap(): WorkerHeap {
    const sum = { usedBytes: 0, totalBytes: 0, youngBytes: 0, externalBytes: 0 };
    for (const { heap } of this.#slots) {
      if (heap === undefined) continue;
      sum.usedBytes += heap.usedBytes;
      sum.totalBytes += heap.totalBytes;
      sum.youngBytes += heap.youngBytes;
      sum.externalBytes += heap.externalBytes;
    }
    return sum;
  }

  /**
   * CPU time of the pool's workers since it was made, read from Linux's scheduler statistics
   * (zero elsewhere): the running workers' now, and what the replaced or retired ones had used.
   */
  get cpu(): ThreadCpu {
    let sum = this.#pastCpu;
    for (const slot of this.#slots) sum = addThreadCpu(sum, this.#readCpu(slot));
    return sum;
  }

  /** The slot's worker's CPU time now, or as last read once its thread is gone. */
  #readCpu(slot: Slot): ThreadCpu {
    const now = slot.threadId === undefined ? undefined : threadCpu(slot.threadId);
    if (now !== undefined) slot.cpu = now;
    return slot.cpu;
  }

  /** Worker threads started since the pool was made: the base ones, growth and replacements. */
  get started(): number {
    return this.#started;
  }

  /** Transactions the workers re-ran untraced to reach the state their traces start from, since the pool was made. */
  get replayedTransactions(): number {
    return this.#replayed;
  }

  /** The young-generation (nursery) limits V8 applied to the pool's running workers, summed, bytes. */
  get nurseryLimitBytes(): number {
    let mib = 0;
    for (const { worker } of this.#slots) mib += worker.resourceLimits?.maxYoungGenerationSizeMb ?? 0;
    return mib * 1024 * 1024;
  }

  /**
   * Runs `body` on a worker within `deadline`, on the worker of its `affinity` when that one
   * may take it; throws PoolFullError when the queue is full.
   */
  run(body: TaskBody, deadline: Deadline, affinity?: Affinity): Promise<unknown> {
    if (this.#closed) return Promise.reject(new Error('the node is shutting down'));
    const idle = (affinity && this.#affineTaker(affinity)) ?? this.#takerNow();
    if (idle === undefined && this.#queue.length >= this.#options.maxQueued) return Promise.reject(new PoolFullError(this.#queue.length));
    return new Promise((resolve, reject) => {
      const task = withFields(compactBytes(body), { id: this.#nextId++, deadlineAt: Date.now() + deadline.ms }) as Task;
      const timer = setTimeout(() => this.#expire(pending), deadline.ms);
      const pending: Pending = { task, deadline, resolve, reject, timer, affinity };
      if (idle) this.#start(idle, pending);
      else {
        this.#queue.push(pending);
        this.#watchQueue();
      }
    });
  }

  /** Fails every waiting and running task and terminates the workers. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#growCheck);
    const closing = new Error('the node is shutting down');
    for (const pending of this.#queue.splice(0)) this.#settle(pending, closing);
    for (const resolve of this.#readyWaiters.splice(0)) resolve();
    for (const slot of this.#slots) {
      for (const pending of slot.inflight.splice(0)) this.#settle(pending, closing);
      clearTimeout(slot.retire);
      clearTimeout(slot.overdue);
    }
    await Promise.all(this.#slots.map((slot) => slot.worker.terminate()));
  }

  /**
   * The worker a task may go to now: an idle one, else the least loaded one whose current
   * task started under LONG_TASK_MS ago and that holds fewer than `pipeline` tasks.
   */
  #takerNow(): Slot | undefined {
    const now = performance.now();
    let best: Slot | undefined;
    for (const slot of this.#slots) {
      if (!this.#canTake(slot, now)) continue;
      if (slot.inflight.length === 0) return slot;
      if (best === undefined || slot.inflight.length < best.inflight.length) best = slot;
    }
    return best;
  }

  /**
   * The worker that took the latest task of `affinity.key` ordered before this one, if it may
   * take one more: ready, under AFFINITY_DEPTH, and idle or on a young task.
   */
  #affineTaker(affinity: Affinity): Slot | undefined {
    const now = performance.now();
    let best: Slot | undefined;
    for (const slot of this.#slots) {
      const last = slot.affinity;
      if (last === undefined || last.key !== affinity.key || last.order >= affinity.order) continue;
      if (best !== undefined && best.affinity!.order >= last.order) continue;
      best = slot;
    }
    if (best === undefined || !best.ready || best.inflight.length >= AFFINITY_DEPTH) return undefined;
    return best.inflight.length === 0 || !this.#onLongTask(best, now) ? best : undefined;
  }

  /** Whether `slot` may be given another task: ready, below its pipeline, and idle or on a young task. */
  #canTake(slot: Slot, now: number): boolean {
    if (!slot.ready) return false;
    const held = slot.inflight.length;
    if (held === 0) return true;
    if (held >= (this.#options.pipeline ?? 1)) return false;
    return !this.#onLongTask(slot, now);
  }

  /** Whether the task `slot` runs has run LONG_TASK_MS or more. */
  #onLongTask(slot: Slot, now: number): boolean {
    const startedAt = slot.inflight[0]?.startedAt;
    return startedAt !== undefined && now - startedAt >= LONG_TASK_MS;
  }

  #addSlot(): Slot {
    const slot: Slot = { worker: this.#spawn(this.#slots.length >= this.#options.workers), inflight: [], retire: undefined, ready: false, overdue: undefined, heap: undefined, affinity: undefined, replayed: 0, threadId: undefined, cpu: NO_THREAD_CPU };
    this.#watch(slot);
    this.#slots.push(slot);
    return slot;
  }

  #start(slot: Slot, pending: Pending): void {
    clearTimeout(slot.retire);
    slot.retire = undefined;
    slot.inflight.push(pending);
    if (pending.affinity) slot.affinity = pending.affinity;
    // A task behind another starts when the one before it is answered.
    if (slot.inflight.length === 1) pending.startedAt = performance.now();
    else this.#watchQueue();
    slot.worker.postMessage(pending.task);
  }

  /**
   * While tasks wait (in the queue, or in a worker's port behind another), checks every
   * LONG_TASK_MS for workers stuck on a long task: takes back the tasks behind it, and grows
   * the pool when every worker is stuck.
   */
  #watchQueue(): void {
    if (this.#growCheck !== undefined) return;
    this.#growCheck = setTimeout(() => {
      this.#growCheck = undefined;
      if (this.#closed) return;
      this.#rebalance();
      if (this.#queue.length > 0 || this.#slots.some((slot) => slot.inflight.length > 1)) this.#watchQueue();
    }, LONG_TASK_MS);
    this.#growCheck.unref();
  }

  /** Moves the tasks waiting behind a long task back to the queue, grows if stuck, and hands out the queue. */
  #rebalance(): void {
    const now = performance.now();
    const taken: Pending[] = [];
    for (const slot of this.#slots) {
      if (slot.inflight.length > 1 && this.#onLongTask(slot, now)) taken.push(...slot.inflight.splice(1));
    }
    for (const pending of taken) pending.startedAt = undefined;
    this.#queue.unshift(...taken);
    if (this.#queue.length === 0) return;
    this.#growIfStuck();
    for (const slot of this.#slots) if (this.#queue.length > 0 && this.#canTake(slot, now)) this.#next(slot);
  }

  /** Adds a worker for the waiting tasks when every worker is busy with a long task. */
  #growIfStuck(): void {
    if (this.#closed || this.#queue.length === 0 || this.#slots.length >= this.#options.maxWorkers) return;
    const now = performance.now();
    // A worker still starting will take a task soon: only workers busy with long tasks count.
    const stuck = this.#slots.every((slot) => {
      const startedAt = slot.inflight[0]?.startedAt;
      return startedAt !== undefined && now - startedAt >= LONG_TASK_MS;
    });
    if (stuck) this.#addSlot();
  }

  /** Hands waiting tasks to the worker, up to its pipeline; an idle one beyond the base size leaves later. */
  #next(slot: Slot): void {
    const now = performance.now();
    while (this.#queue.length > 0 && this.#canTake(slot, now)) this.#start(slot, this.#queue.shift()!);
    if (slot.inflight.length > 0) return;
    if (this.#slots.length > this.#options.workers && slot.retire === undefined) {
      slot.retire = setTimeout(() => this.#retire(slot), EXTRA_IDLE_MS);
      slot.retire.unref();
    }
  }

  /** Ends an idle worker beyond the base size. */
  #retire(slot: Slot): void {
    slot.retire = undefined;
    if (slot.inflight.length > 0 || this.#slots.length <= this.#options.workers) return;
    this.#slots.splice(this.#slots.indexOf(slot), 1);
    this.#pastCpu = addThreadCpu(this.#pastCpu, this.#readCpu(slot));
    stop(slot.worker);
  }

  #settle(pending: Pending, outcome: Error | { value: unknown }): void {
    clearTimeout(pending.timer);
    if (outcome instanceof Error) pending.reject(outcome);
    else pending.resolve(outcome.value);
  }

  /**
   * A task's deadline passed: drop it from the queue, or fail it and give the worker running it
   * STOP_GRACE_MS to give it up. A task still waiting in a worker's port is only forgotten (its
   * late answer is ignored).
   */
  #expire(pending: Pending): void {
    const queuedAt = this.#queue.indexOf(pending);
    if (queuedAt >= 0) {
      this.#queue.splice(queuedAt, 1);
      pending.reject(pending.deadline.error());
      return;
    }
    const slot = this.#slots.find((s) => s.inflight.includes(pending));
    if (slot === undefined) return;
    pending.reject(pending.deadline.error());
    if (slot.inflight[0] !== pending) {
      slot.inflight.splice(slot.inflight.indexOf(pending), 1);
      return;
    }
    // The tasks behind it go to other workers; the failed task stays at the head, so this
    // worker takes nothing new until it answers it (the answer is dropped) or is terminated.
    this.#requeue(slot, 1);
    slot.overdue = setTimeout(() => {
      slot.overdue = undefined;
      if (slot.inflight[0] !== pending) return;
      slot.inflight.shift();
      this.#requeue(slot);
      this.#replace(slot);
    }, STOP_GRACE_MS);
    slot.overdue.unref();
  }

  /** Puts the tasks a worker holds from position `from` on back at the head of the queue. */
  #requeue(slot: Slot, from = 0): void {
    const waiting = slot.inflight.splice(from);
    for (const pending of waiting) pending.startedAt = undefined;
    this.#queue.unshift(...waiting);
    if (waiting.length > 0) this.#watchQueue();
  }

  /**
   * Terminates the slot's worker (its task is settled already) and starts a fresh one — or,
   * for a worker beyond the base size with nothing waiting, lets the slot go.
   */
  #replace(slot: Slot, pauseMs = 0): void {
    this.#pastCpu = addThreadCpu(this.#pastCpu, this.#readCpu(slot));
    slot.threadId = undefined;
    slot.cpu = NO_THREAD_CPU;
    stop(slot.worker);
    clearTimeout(slot.overdue);
    slot.overdue = undefined;
    slot.heap = undefined;
    slot.affinity = undefined;
    slot.replayed = 0;
    slot.inflight.length = 0;
    if (this.#queue.length === 0 && this.#slots.length > this.#options.workers) {
      this.#slots.splice(this.#slots.indexOf(slot), 1);
      return;
    }
    slot.ready = false;
    const restart = (): void => {
      if (this.#closed) return;
      slot.worker = this.#spawn(this.#slots.indexOf(slot) >= this.#options.workers);
      this.#watch(slot);
    };
    if (pauseMs > 0) setTimeout(restart, pauseMs).unref();
    else restart();
  }

  /** Starts a worker thread; `burst`: one beyond the base size. */
  #spawn(burst: boolean): Worker {
    this.#started++;
    const { heapMiB = DEFAULT_HEAP_MIB } = this.#options;
    const youngGenerationMiB = burst ? (this.#options.burstYoungGenerationMiB ?? this.#options.youngGenerationMiB) : this.#options.youngGenerationMiB;
    const { entry, eval: isCode } = workerEntry();
    const resourceLimits = { maxOldGenerationSizeMb: heapMiB, ...(youngGenerationMiB ? { maxYoungGenerationSizeMb: youngGenerationMiB } : {}) };
    return new Worker(entry, { eval: isCode, workerData: this.#setup, resourceLimits });
  }

  #watch(slot: Slot): void {
    const worker = slot.worker;
    const startedAt = Date.now();
    worker.on('message', (reply: WorkerMessage) => {
      if (typeof reply === 'object' && 'heap' in reply) {
        slot.heap = reply.heap;
        slot.threadId = reply.threadId;
        return;
      }
      if (reply === WORKER_READY) {
        slot.ready = true;
        this.#next(slot);
        if (this.#slots.every((s) => s.ready)) for (const resolve of this.#readyWaiters.splice(0)) resolve();
        return;
      }
      // A worker's count only grows, and its port delivers replies in order.
      this.#replayed += reply.replayed - slot.replayed;
      slot.replayed = reply.replayed;
      const at = slot.inflight.findIndex((pending) => pending.task.id === reply.id);
      if (at >= 0) {
        const [pending] = slot.inflight.splice(at, 1);
        if (at === 0 && slot.overdue !== undefined) {
          clearTimeout(slot.overdue);
          slot.overdue = undefined;
        }
        // The worker's own deadline error reads as the caller's timeout (the two clocks agree to a millisecond or so).
        this.#settle(pending!, reply.ok ? { value: reply.result } : reply.failure.kind === 'deadline' ? pending!.deadline.error() : errorOf(reply.failure));
      }
      const head = slot.inflight[0];
      if (head !== undefined && head.startedAt === undefined) head.startedAt = performance.now();
      this.#next(slot);
    });
    const died = (reason: string): void => {
      if (this.#closed || slot.worker !== worker) return;
      this.#options.logger.error('execution worker stopped; starting another', { pool: this.#options.name, reason });
      const running = slot.inflight.shift();
      if (running) this.#settle(running, new Error(`the execution worker running this request stopped: ${reason}`));
      this.#requeue(slot);
      this.#replace(slot, Date.now() - startedAt < RESTART_PAUSE_MS ? RESTART_PAUSE_MS : 0);
    };
    worker.on('error', (error) => died(error.message));
    worker.on('exit', (code) => died(`exit code ${code}`));
  }
}
