import t from 'tap';
import { MvccStore } from '../../src/store/index.js';
t.test('opens', async (t) => {
  const dir = t.testdir();
  const s = await MvccStore.open(dir);
  t.equal(s.latestVersion(), 0);
  await s.close();
});
