/**
 * The progress display of `npm run bench`: plain lines without a TTY, `cli-progress` bars on
 * one; a bar shows the suite's latest stderr line and says done only once the suite ended.
 */
import { PassThrough } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { createProgress } from '../../bench/suite/progress.js';

/** A stream that records what is written to it, posing as a terminal when `tty`. */
function capture(tty: boolean): { stream: NodeJS.WriteStream; text: () => string } {
  const stream = new PassThrough() as unknown as NodeJS.WriteStream & PassThrough;
  let text = '';
  stream.on('data', (c: Buffer) => (text += c.toString('utf8')));
  if (tty) Object.assign(stream, { isTTY: true, columns: 200, rows: 40 });
  return { stream, text: () => text };
}

const plain = (s: string) => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');

t.test('plain lines without a TTY', async (t) => {
  const out = capture(false);
  const progress = createProgress(out.stream);
  progress.add('statesync', 40);
  const bar = progress.start('statesync');
  bar.line('· restore split=false: 7.4 s');
  bar.finish(false, 12.4);
  progress.stop();
  t.equal(out.text(), '[bench] statesync: started (usually ~40 s)\n[bench] statesync: FAILED after 12 s\n');
});

t.test('a bar per suite on a TTY, done only at the end', async (t) => {
  const out = capture(true);
  const progress = createProgress(out.stream);
  progress.add('store', 2);
  progress.add('commit', 60);
  const bar = progress.start('store');
  bar.line('· reads, round 1 of 3: native driver, then Node-API…');
  // Past the suite's usual 2 s the bar stays short of full and says so.
  await sleep(3500);
  const running = plain(out.text());
  t.match(running, /store\s+\[/, 'the store bar');
  t.match(running, /commit\s+\[.*\] 0 s of ~60 s\s+waiting/, 'the commit bar waits');
  t.match(running, 'reads, round 1 of 3: native driver, then Node-API', 'the latest stderr line, without its bullet');
  t.match(running, 'over the usual time');
  t.notMatch(running, /\bdone\b/, 'not done while running');
  bar.finish(true, 3.5);
  progress.stop();
  t.match(plain(out.text()), /store\s+\[.*\] 4 s of ~2 s\s+done/, 'done once it ended');
});
