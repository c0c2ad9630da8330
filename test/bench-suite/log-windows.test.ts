/** The eth_getLogs windows of bench:node's indexer suite: distinct, 1,000 blocks each, spanning the history, alike on any history of one length. */
import t from 'tap';
import { HistoryError, LOG_HISTORY_BLOCKS, LOG_RANGE_BLOCKS, LOG_WINDOWS, logWindows } from '../../bench/node/indexer.js';

t.test('windows slide over the whole history', async (t) => {
  const history = { fromBlock: 8, toBlock: 8 + LOG_HISTORY_BLOCKS - 1 };
  const windows = logWindows(history);
  t.equal(windows.length, LOG_WINDOWS, 'every window is distinct');
  t.equal(new Set(windows.map((w) => w.fromBlock)).size, windows.length);
  t.ok(windows.every((w) => w.toBlock - w.fromBlock + 1 === LOG_RANGE_BLOCKS), `each spans ${LOG_RANGE_BLOCKS} blocks`);
  t.equal(windows[0]!.fromBlock, history.fromBlock, 'the first starts at the history\'s first block');
  t.equal(windows[windows.length - 1]!.toBlock, history.toBlock, 'the last ends at its last block');
  const other = logWindows({ fromBlock: 2, toBlock: 2 + LOG_HISTORY_BLOCKS - 1 });
  t.same(other.map((w) => w.fromBlock - 2), windows.map((w) => w.fromBlock - 8), 'the same offsets on another history of the same length');
  t.throws(() => logWindows({ fromBlock: 1, toBlock: LOG_RANGE_BLOCKS - 1 }), HistoryError, 'a history shorter than a window is refused');
});
