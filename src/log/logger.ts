/**
 * Structured logging: one line per event, as JSON (`log_format = "json"`) or as plain text
 * (`"plain"`), filtered by `log_level` (trace < debug < info < warn < error).
 */

/** Log levels, least to most severe. */
export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error';
/** Output formats (`log_format`). */
export type LogFormat = 'json' | 'plain';
/** Key/value labels attached to a log line. */
export type LogLabels = Record<string, string | number | bigint | boolean | null | undefined>;

/** One emitted log record. */
export interface LogRecord {
  level: LogLevel;
  time: string;
  msg: string;
  labels: LogLabels;
}

const SEVERITY: Record<LogLevel, number> = { trace: 0, debug: 1, info: 2, warn: 3, error: 4 };
const PLAIN_TAG: Record<LogLevel, string> = { trace: 'TRC', debug: 'DBG', info: 'INF', warn: 'WRN', error: 'ERR' };

/** Where formatted lines go; the default writes to standard error. */
export type LogSink = (line: string, record: LogRecord) => void;

/** Options of a logger. */
export interface LoggerOptions {
  level?: LogLevel;
  format?: LogFormat;
  sink?: LogSink;
  /** Labels added to every line (e.g. `module`). */
  base?: LogLabels;
}

function labelValue(value: LogLabels[string]): string | number | boolean | null {
  if (typeof value === 'bigint') return value.toString();
  return value ?? null;
}

/** Formats a record as one JSON line: level, time, msg, then the labels. */
export function formatJson(record: LogRecord): string {
  const out: Record<string, string | number | boolean | null> = { level: record.level, time: record.time, msg: record.msg };
  for (const [key, value] of Object.entries(record.labels)) out[key] = labelValue(value);
  return JSON.stringify(out);
}

/** Formats a record as `time TAG msg key=value …`. */
export function formatPlain(record: LogRecord): string {
  const labels = Object.entries(record.labels)
    .map(([key, value]) => `${key}=${JSON.stringify(labelValue(value))}`)
    .join(' ');
  return `${record.time} ${PLAIN_TAG[record.level]} ${record.msg}${labels ? ` ${labels}` : ''}`;
}

/** A leveled, structured logger. */
export class Logger {
  readonly level: LogLevel;
  readonly format: LogFormat;
  readonly #sink: LogSink;
  readonly #base: LogLabels;

  constructor(options: LoggerOptions = {}) {
    this.level = options.level ?? 'info';
    this.format = options.format ?? 'json';
    this.#sink = options.sink ?? ((line) => process.stderr.write(`${line}\n`));
    this.#base = options.base ?? {};
  }

  /** A logger writing every line to this one's sink and to `extra` too (the log file, the crash-report ring). */
  tee(extra: LogSink): Logger {
    const sink = this.#sink;
    return new Logger({
      level: this.level,
      format: this.format,
      base: this.#base,
      sink: (line, record) => {
        sink(line, record);
        extra(line, record);
      },
    });
  }

  /** A logger that adds `labels` to every line. */
  child(labels: LogLabels): Logger {
    return new Logger({ level: this.level, format: this.format, sink: this.#sink, base: { ...this.#base, ...labels } });
  }

  trace(msg: string, labels: LogLabels = {}): void {
    this.#emit('trace', msg, labels);
  }
  debug(msg: string, labels: LogLabels = {}): void {
    this.#emit('debug', msg, labels);
  }
  info(msg: string, labels: LogLabels = {}): void {
    this.#emit('info', msg, labels);
  }
  warn(msg: string, labels: LogLabels = {}): void {
    this.#emit('warn', msg, labels);
  }
  error(msg: string, labels: LogLabels = {}): void {
    this.#emit('error', msg, labels);
  }

  #emit(level: LogLevel, msg: string, labels: LogLabels): void {
    if (SEVERITY[level] < SEVERITY[this.level]) return;
    const record: LogRecord = { level, time: new Date().toISOString(), msg, labels: { ...this.#base, ...labels } };
    this.#sink(this.format === 'json' ? formatJson(record) : formatPlain(record), record);
  }
}

/** A logger that keeps its records in memory (for tests and tools). */
export function memoryLogger(level: LogLevel = 'trace'): { logger: Logger; records: LogRecord[] } {
  const records: LogRecord[] = [];
  return { logger: new Logger({ level, sink: (_line, record) => records.push(record) }), records };
}
