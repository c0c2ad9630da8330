/**
 * Progress of a snapshot download: a cli-progress bar on stderr when it is a terminal, and
 * otherwise a log line every few seconds (and at the last chunk), so a log file or a service
 * manager's journal shows the download advancing without a line per chunk.
 */
import cliProgress from 'cli-progress';

import type { Logger } from '../log/logger.js';

/** Told of each chunk written; stop() ends the bar. */
export interface DownloadProgress {
  chunk(index: number, total: number, bytes: number): void;
  stop(): void;
}

const LOG_EVERY_MS = 5_000;

function megabytes(bytes: number): string {
  return (bytes / 1e6).toFixed(1);
}

/** The progress display for downloading snapshot `height` of `totalBytes` in `chunks` chunks. */
export function downloadProgress(height: number, chunks: number, totalBytes: number, logger: Logger, terminal = process.stderr.isTTY === true): DownloadProgress {
  let bytes = 0;
  const started = Date.now();
  if (terminal) {
    const bar = new cliProgress.SingleBar(
      { format: `state sync, snapshot ${height} [{bar}] {percentage}% | chunk {value}/{total} | {mb} MB | {eta}s left`, stream: process.stderr, hideCursor: true },
      cliProgress.Presets.shades_classic,
    );
    bar.start(chunks, 0, { mb: '0.0' });
    return {
      chunk(index, _total, size) {
        bytes += size;
        bar.update(index + 1, { mb: megabytes(bytes) });
      },
      stop() {
        bar.stop();
      },
    };
  }
  let lastLog = started;
  return {
    chunk(index, total, size) {
      bytes += size;
      const now = Date.now();
      if (now - lastLog < LOG_EVERY_MS && index + 1 !== total) return;
      lastLog = now;
      const seconds = (now - started) / 1000;
      logger.info('state sync: fetched and verified snapshot chunks', {
        height,
        chunks: `${index + 1}/${total}`,
        mb: `${megabytes(bytes)}/${megabytes(totalBytes)}`,
        mbPerSecond: seconds > 0 ? (bytes / 1e6 / seconds).toFixed(1) : '0',
      });
    },
    stop() {},
  };
}
