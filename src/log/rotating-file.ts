/**
 * A log file under the home that rotates by size: when a line would take it past the limit,
 * `node.log` becomes `node.log.1` (the older ones shift up) and a fresh file is started;
 * beyond the kept count the oldest is deleted. Writes are synchronous so the lines before a
 * crash are on disk when the process dies.
 */
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/** Where and how a log file rotates. */
export interface RotatingFileOptions {
  /** Absolute path of the current file. */
  path: string;
  /** Size at which the file is rotated, in bytes. */
  maxBytes: number;
  /** Rotated files kept next to it (`<path>.1` … `<path>.<keep>`). */
  keep: number;
}

/** An append-only log file rotated by size. */
export class RotatingFile {
  #fd: number;
  #size: number;
  #failed = false;

  constructor(private readonly options: RotatingFileOptions) {
    mkdirSync(dirname(options.path), { recursive: true });
    this.#fd = openSync(options.path, 'a', 0o600);
    this.#size = fstatSync(this.#fd).size;
  }

  /** Appends one line (a newline is added). */
  write(line: string): void {
    if (this.#failed) return;
    const bytes = Buffer.from(`${line}\n`);
    try {
      if (this.#size > 0 && this.#size + bytes.length > this.options.maxBytes) this.#rotate();
      writeSync(this.#fd, bytes);
      this.#size += bytes.length;
    } catch (error) {
      // A full or vanished disk must not take the node down with it; stderr still has the log.
      this.#failed = true;
      process.stderr.write(`log file ${this.options.path} can no longer be written (${error instanceof Error ? error.message : String(error)}); logging to stderr only\n`);
    }
  }

  #rotate(): void {
    closeSync(this.#fd);
    const { path, keep } = this.options;
    rmSync(`${path}.${keep}`, { force: true });
    for (let n = keep - 1; n >= 1; n--) if (existsSync(`${path}.${n}`)) renameSync(`${path}.${n}`, `${path}.${n + 1}`);
    if (keep >= 1) renameSync(path, `${path}.1`);
    else rmSync(path, { force: true });
    this.#fd = openSync(path, 'a', 0o600);
    this.#size = 0;
  }

  /** Closes the file. */
  close(): void {
    if (this.#failed) return;
    this.#failed = true;
    closeSync(this.#fd);
  }
}
