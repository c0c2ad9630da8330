/**
 * go-ethereum's tracer fixtures: every fixture of every folder (callTracer with withLog /
 * onlyTopCall, flatCallTracer, prestateTracer and its diffMode, erc7562Tracer, and the
 * JavaScript callTracerLegacy / prestateTracerLegacy) reproduces geth's output under geth's
 * comparison for that folder.
 */
import t from 'tap';

import { loadJsTracerEngine } from '../../src/trace/index.js';
import { checkFixture, fixtureFolders, fixtureNames } from './fixtures-harness.js';

await loadJsTracerEngine();
const folders = fixtureFolders();
t.equal(folders.length, 8, 'every fixture folder is run');

for (const folder of folders) {
  t.test(folder, async (t) => {
    const names = fixtureNames(folder);
    t.ok(names.length > 0, `${folder} has fixtures`);
    for (const name of names) {
      const outcome = await checkFixture(folder, name);
      t.equal(outcome.actual, outcome.expected, `${name} output matches geth`);
      t.ok(outcome.passed, `${name} passes${outcome.reason === undefined ? '' : `: ${outcome.reason}`}`);
    }
  });
}
