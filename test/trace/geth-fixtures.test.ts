/**
 * go-ethereum's tracer fixtures: every fixture of the folders whose tracer this node
 * provides (callTracer, callTracer withLog/onlyTopCall, flatCallTracer, prestateTracer and
 * its diffMode) reproduces geth's output under geth's comparison for that folder.
 */
import t from 'tap';

import { checkFixture, fixtureNames } from './fixtures-harness.js';

const NATIVE_FOLDERS = ['call_tracer', 'call_tracer_withLog', 'call_tracer_flat', 'prestate_tracer', 'prestate_tracer_with_diff_mode'];

for (const folder of NATIVE_FOLDERS) {
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
