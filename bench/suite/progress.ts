/**
 * Progress of a suite run on the operator's terminal: one `cli-progress` bar per suite on a TTY,
 * plain lines otherwise (CI logs, pipes). The suites print no machine-readable progress, so a
 * bar advances with elapsed time against the suite's usual duration (./figures.ts) and never
 * claims to be done before the suite exits: it stops short of full until then and says so when
 * a suite runs over its usual time. The suite's latest stderr line is shown beside it.
 */
import cliProgress from 'cli-progress';
import { SUITE_NAMES } from './figures.js';

/** One suite's bar. */
export interface SuiteBar {
  /** The suite printed a line on stderr. */
  line(text: string): void;
  /** The suite ended. */
  finish(ok: boolean, seconds: number): void;
}

/** The progress display of a whole run. */
export interface Progress {
  /** Registers a suite that will run, before any starts, so every bar is visible from the start. */
  add(suite: string, expectedSeconds: number): void;
  start(suite: string): SuiteBar;
  stop(): void;
}

/** How often a bar is redrawn, and how often a plain line is printed while a suite runs. */
const TICK_MS = 1000;
const PLAIN_EVERY_MS = 30_000;
const STATUS_WIDTH = 70;

const shorten = (text: string) => (text.length > STATUS_WIDTH ? `${text.slice(0, STATUS_WIDTH - 1)}…` : text);

/** Bars on a TTY. */
function barProgress(stream: NodeJS.WriteStream): Progress {
  const multi = new cliProgress.MultiBar(
    {
      format: '{suite} [{bar}] {elapsed} s of ~{expected} s  {status}',
      hideCursor: true,
      clearOnComplete: false,
      stopOnComplete: false,
      stream,
      barsize: 30,
    },
    cliProgress.Presets.shades_classic,
  );
  const bars = new Map<string, { bar: cliProgress.SingleBar; expected: number }>();
  const width = Math.max(...SUITE_NAMES.map((s) => s.length));
  return {
    add(suite, expectedSeconds) {
      const bar = multi.create(expectedSeconds, 0, { suite: suite.padEnd(width), elapsed: 0, expected: expectedSeconds, status: 'waiting' });
      bars.set(suite, { bar, expected: expectedSeconds });
    },
    start(suite) {
      const entry = bars.get(suite);
      if (!entry) throw new Error(`no bar for suite ${suite}`);
      const started = Date.now();
      let status = 'starting';
      const draw = () => {
        const elapsed = Math.round((Date.now() - started) / 1000);
        // Short of full until the suite exits; past its usual time the bar waits at 99 %.
        const value = Math.min(elapsed, entry.expected * 0.99);
        const note = elapsed > entry.expected ? 'over the usual time · ' : '';
        entry.bar.update(value, { elapsed, status: shorten(note + status) });
      };
      const timer = setInterval(draw, TICK_MS);
      draw();
      return {
        line(text) {
          if (text.trim() !== '') status = text.trim().replace(/^·\s*/, '');
        },
        finish(ok, seconds) {
          clearInterval(timer);
          entry.bar.update(ok ? entry.expected : Math.min(entry.expected * 0.99, seconds), {
            elapsed: Math.round(seconds),
            status: ok ? 'done' : 'FAILED (see report.md)',
          });
        },
      };
    },
    stop() {
      multi.stop();
    },
  };
}

/** Plain lines where there is no TTY. */
function lineProgress(stream: NodeJS.WritableStream): Progress {
  const expected = new Map<string, number>();
  const say = (text: string) => stream.write(`[bench] ${text}\n`);
  return {
    add(suite, expectedSeconds) {
      expected.set(suite, expectedSeconds);
    },
    start(suite) {
      const started = Date.now();
      let status = '';
      say(`${suite}: started (usually ~${expected.get(suite) ?? '?'} s)`);
      const timer = setInterval(() => say(`${suite}: ${Math.round((Date.now() - started) / 1000)} s${status ? ` · ${shorten(status)}` : ''}`), PLAIN_EVERY_MS);
      return {
        line(text) {
          if (text.trim() !== '') status = text.trim().replace(/^·\s*/, '');
        },
        finish(ok, seconds) {
          clearInterval(timer);
          say(`${suite}: ${ok ? 'done' : 'FAILED'} after ${seconds.toFixed(0)} s`);
        },
      };
    },
    stop() {},
  };
}

/** Bars when `stream` is a TTY, plain lines otherwise. */
export function createProgress(stream: NodeJS.WriteStream = process.stderr): Progress {
  return stream.isTTY ? barProgress(stream) : lineProgress(stream);
}
