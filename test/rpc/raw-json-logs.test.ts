/** A result given as RawJson is spliced into the response as is; eth_getLogs' text equals the log objects serialised. */
import t from 'tap';
import { resultResponse } from '../../src/rpc/jsonrpc/index.js';
import { RawJson } from '../../src/util/raw-json.js';
import { formatLogs, formatLogsJson } from '../../src/rpc/eth/format.js';
import type { EthLog } from '../../src/rpc/eth/index.js';

const log = (block: number, index: number): EthLog => ({
  address: Buffer.alloc(20, 0xaa),
  topics: [Buffer.alloc(32, index), Buffer.alloc(32, 0xbb)],
  data: Buffer.from([1, 2, 3]),
  blockNumber: block,
  blockHash: Buffer.alloc(32, block),
  transactionHash: Buffer.alloc(32, 0x10 + index),
  transactionIndex: index,
  logIndex: index,
  blockTimestamp: 1_700_000_000n + BigInt(block),
});

t.test('resultResponse splices JSON text; any other JSON.stringify gets the value', async (t) => {
  t.equal(resultResponse('7', new RawJson('[{"a":1}]'), 'm'), '{"jsonrpc":"2.0","id":7,"result":[{"a":1}]}');
  t.equal(JSON.stringify({ r: new RawJson('[1,"x"]') }), '{"r":[1,"x"]}');
});

t.test('formatLogsJson is the JSON of formatLogs, again the same when asked again', async (t) => {
  const logs = [log(5, 0), log(5, 1), log(6, 0)];
  const expected = JSON.stringify(formatLogs(logs));
  t.equal(formatLogsJson(logs).text, expected, 'the same text as the log objects serialised');
  t.equal(formatLogsJson(logs).text, expected, 'and from the remembered texts');
  t.equal(formatLogsJson([]).text, '[]', 'no logs: an empty array');
  t.same(JSON.parse(formatLogsJson(logs.slice(1)).text), formatLogs(logs.slice(1)), 'a sub-range of remembered logs');
  const mixed = [log(7, 0), logs[2]!, log(8, 0), log(8, 1)];
  t.equal(formatLogsJson(mixed).text, JSON.stringify(formatLogs(mixed)), 'new logs around a remembered one, each in its place');
});

t.test('eth_getLogs answers go out as bytes: the response is the log texts, copied once', async (t) => {
  const logs = [log(9, 0), log(9, 1)];
  const answer = resultResponse('3', formatLogsJson(logs), 'eth_getLogs');
  t.type(answer, Uint8Array, 'a byte response, not a string to encode again');
  t.equal(Buffer.from(answer as Uint8Array).toString('utf8'), `{"jsonrpc":"2.0","id":3,"result":${JSON.stringify(formatLogs(logs))}}`);
  t.equal(Buffer.from(resultResponse('4', formatLogsJson([]), 'eth_getLogs') as Uint8Array).toString('utf8'), '{"jsonrpc":"2.0","id":4,"result":[]}', 'no logs');
});
