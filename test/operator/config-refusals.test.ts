/**
 * Settings this node cannot honour are refused at start, not ignored: `sc-enable = false` or
 * `ss-enable = false` (it needs both), and the pre-`evm-ss-split` keys wherever app.toml holds
 * them, refused with the mapping onto `evm-ss-split`. A refused start changes nothing on disk.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { initHome, startNode, stratad } from '../node/fixtures/node-process.js';
import { filesOf, runTo } from '../node/fixtures/stopped-home.js';

t.test('unsupported app.toml settings refuse the start and change nothing', async (t) => {
  const home = await initHome(t, 150);
  await runTo(t, home, 2);
  const appToml = join(home.home, 'config', 'app.toml');
  const original = readFileSync(appToml, 'utf8');
  const cases: Array<{ what: string; edit: (text: string) => string; says: RegExp[] }> = [
    {
      what: 'sc-enable = false',
      edit: (text) => text.replace(/^sc-enable = true$/m, 'sc-enable = false'),
      says: [/\[state-commit\] sc-enable: expected true; found false/, /this node needs both the state commitment \(sc-enable\) and the state store \(ss-enable\)/, /Set sc-enable = true in \[state-commit\]/],
    },
    {
      what: 'ss-enable = false',
      edit: (text) => text.replace(/^ss-enable = true$/m, 'ss-enable = false'),
      says: [/\[state-store\] ss-enable: expected true; found false/, /this node needs both/],
    },
    {
      what: 'a legacy key in [evm]',
      edit: (text) => text.replace(/^\[evm\]$/m, '[evm]\nevm-ss-read-mode = "split_read"'),
      says: [/\[evm\] evm-ss-read-mode: expected no such key/, /Mapping: evm-ss-write-mode = "split_write" together with evm-ss-read-mode = "split_read" is evm-ss-split = true/],
    },
    {
      what: 'a legacy key at the top level',
      edit: (text) => `evm-ss-write-mode = "split_write"\n${text}`,
      says: [/config\/app\.toml evm-ss-write-mode: expected no such key/, /remove evm-ss-write-mode and evm-ss-read-mode from the top level/],
    },
  ];
  for (const c of cases) {
    const edited = c.edit(original);
    t.not(edited, original, `${c.what}: the file was edited`);
    writeFileSync(appToml, edited);
    const before = filesOf(join(home.home, 'data'));
    const start = stratad(['start', '--home', home.home]);
    t.equal(start.status, 1, `${c.what}: refused`);
    for (const pattern of c.says) t.match(start.stderr, pattern, `${c.what}: ${pattern}`);
    t.same(filesOf(join(home.home, 'data')), before, `${c.what}: nothing under data/ changed`);
  }
  writeFileSync(appToml, original);
  const again = await startNode(t, home);
  t.equal(await again.stop(), 0, 'the restored file starts');
});
