/**
 * rawIdTexts: the source text of each message's own `id`, found past strings with escaped
 * quotes and backslash runs, ids nested in params, batches and whitespace.
 */
import t from 'tap';

import { rawIdTexts, scalarValueEnd } from '../../src/rpc/jsonrpc/raw-ids.js';

t.test('the id of an object body, as written', (t) => {
  t.same(rawIdTexts('{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}'), ['1']);
  t.same(rawIdTexts('  {"id" :  1e400 , "method":"x"}'), ['1e400'], 'whitespace around the colon and the value');
  t.same(rawIdTexts('{"id":-0.0}'), ['-0.0']);
  t.same(rawIdTexts('{"id":"a\\"b"}'), ['"a\\"b"'], 'a string id with an escaped quote, quotes included');
  t.same(rawIdTexts('{"method":"x"}'), [undefined], 'no id');
  t.same(rawIdTexts('{"id":1,"id":2.50}'), ['2.50'], 'the last id member wins, as in JSON.parse');
  t.end();
});

t.test('strings before the id: escapes and backslash runs end where JSON says', (t) => {
  t.same(rawIdTexts('{"a":"x\\\\","id":2}'), ['2'], 'a string ending in an escaped backslash');
  t.same(rawIdTexts('{"a":"x\\"}","id":3}'), ['3'], 'an escaped quote followed by a brace inside the string');
  t.same(rawIdTexts('{"a":"\\\\\\"","id":4}'), ['4'], 'three backslashes then a quote: escaped');
  t.same(rawIdTexts('{"a":"\\\\\\\\","id":5}'), ['5'], 'four backslashes: the next quote closes');
  t.same(rawIdTexts('{"a":"é \\u0022 ☃","id":6}'), ['6'], 'non-ASCII text and a unicode escape');
  t.same(rawIdTexts('{"params":["\\\\\\"id\\":9"],"id": 1.50 }'), ['1.50'], 'an "id" inside a string of params is not the id');
  t.end();
});

t.test('ids nested in params are not the message id', (t) => {
  t.same(rawIdTexts('{"params":[{"id":7}],"id":1.0}'), ['1.0']);
  t.same(rawIdTexts('{"params":[{"id":7}],"method":"x"}'), [undefined]);
  t.end();
});

t.test('a batch: one entry per element, in order', (t) => {
  t.same(rawIdTexts('[{"id":1e400},{"id":"a\\"b"},{"x":[{"id":5}],"id":-0.0}]'), ['1e400', '"a\\"b"', '-0.0']);
  t.same(rawIdTexts(' [ {"method":"x"} , {"id":2} , 3 ] '), [undefined, '2', undefined], 'an element without id and one that is no object');
  t.same(rawIdTexts('[]'), []);
  t.end();
});

t.test('scalarValueEnd: the end of a string, number or literal', (t) => {
  t.equal(scalarValueEnd('"a\\"b",', 0), 6);
  t.equal(scalarValueEnd('12.5e3}', 0), 6);
  t.equal(scalarValueEnd('true ', 0), 4);
  t.equal(scalarValueEnd('"unterminated', 0), 13);
  t.end();
});
