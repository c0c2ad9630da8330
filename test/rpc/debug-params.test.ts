/**
 * Decoding of debug_traceCall's TraceCallConfig extras (stateOverrides, blockOverrides,
 * txIndex) with geth's key matching and error texts, and the StateAccessResponse shape of
 * debug_traceStateAccess.
 */
import t from 'tap';
import { formatStateAccess, parseBlockOverrides, parseTraceCallExtras, type StateAccess } from '../../src/rpc/debug/index.js';
import { RpcError } from '../../src/rpc/jsonrpc/index.js';

const ADDRESS = '0x00000000000000000000000000000000c0ffee01';
const SLOT = `0x${'00'.repeat(31)}03`;

function rpcErrorOf(run: () => unknown): RpcError {
  try {
    run();
  } catch (error) {
    if (error instanceof RpcError) return error;
    throw error;
  }
  throw new Error('expected an RpcError');
}

t.test('absent config and absent fields decode to no overrides', async (t) => {
  for (const config of [undefined, null, {}, { tracer: 'callTracer', unknownKey: 1 }]) {
    t.same(parseTraceCallExtras(config, 2), { stateOverrides: undefined, blockOverrides: {}, txIndex: undefined });
  }
});

t.test('stateOverrides use eth_call format, keys matched case-insensitively', async (t) => {
  const extras = parseTraceCallExtras({ StateOverrides: { [ADDRESS]: { balance: '0x10', nonce: '0x2', code: '0x6000', stateDiff: { [SLOT]: `0x${'00'.repeat(31)}07` } } } }, 2);
  const account = extras.stateOverrides?.get(ADDRESS);
  t.equal(account?.balance, 16n);
  t.equal(account?.nonce, 2n);
  t.same([...(account?.code ?? [])], [0x60, 0x00]);
  t.equal(account?.stateDiff?.get(SLOT)?.[31], 7);
  const both = rpcErrorOf(() => parseTraceCallExtras({ stateOverrides: { [ADDRESS]: { state: {}, stateDiff: {} } } }, 2));
  t.equal(both.message, `account ${ADDRESS} has both 'state' and 'stateDiff'`);
  t.equal(rpcErrorOf(() => parseTraceCallExtras({ stateOverrides: { [ADDRESS]: { balance: 5 } } }, 2)).code, -32602);
});

t.test('blockOverrides: geth names, older spellings, types', async (t) => {
  const current = parseBlockOverrides(
    { number: '0x10', time: '0x20', gasLimit: '0x30', feeRecipient: ADDRESS, prevRandao: SLOT, baseFeePerGas: '0x7', blobBaseFee: '0x9', difficulty: '0x1' },
    2,
  );
  t.equal(current.number, 16n);
  t.equal(current.time, 32n);
  t.equal(current.gasLimit, 48n);
  t.equal(Buffer.from(current.feeRecipient!).toString('hex'), ADDRESS.slice(2));
  t.equal(current.prevRandao?.[31], 3);
  t.equal(current.baseFee, 7n);
  t.equal(current.blobBaseFee, 9n);
  t.notOk('difficulty' in current, 'difficulty is accepted but has no effect after the merge');

  const older = parseBlockOverrides({ coinbase: ADDRESS, random: SLOT, baseFee: '0x8' }, 2);
  t.equal(Buffer.from(older.feeRecipient!).toString('hex'), ADDRESS.slice(2));
  t.equal(older.prevRandao?.[31], 3);
  t.equal(older.baseFee, 8n);

  const notHex = rpcErrorOf(() => parseBlockOverrides({ number: 16 }, 2));
  t.equal(notHex.code, -32602);
  t.equal(notHex.message, 'invalid argument 2: json: cannot unmarshal non-string into Go value of type hexutil.Big');
  t.equal(rpcErrorOf(() => parseBlockOverrides({ time: '0x' }, 2)).message, 'invalid argument 2: hex string "0x"');
  t.equal(rpcErrorOf(() => parseBlockOverrides({ feeRecipient: '0x12' }, 2)).message, 'invalid argument 2: hex string has length 2, want 40 for common.Address');
  t.equal(rpcErrorOf(() => parseBlockOverrides([], 2)).code, -32602);
  const beacon = rpcErrorOf(() => parseBlockOverrides({ beaconRoot: SLOT }, 2));
  t.same([beacon.code, beacon.message], [-32000, 'block override "beaconRoot" is not supported for this RPC method']);
  t.equal(rpcErrorOf(() => parseBlockOverrides({ withdrawals: [] }, 2)).message, 'block override "withdrawals" is not supported for this RPC method');
});

t.test('txIndex is a hex quantity', async (t) => {
  t.equal(parseTraceCallExtras({ txIndex: '0x0' }, 2).txIndex, 0);
  t.equal(parseTraceCallExtras({ TXINDEX: '0x1f' }, 2).txIndex, 31);
  const number = rpcErrorOf(() => parseTraceCallExtras({ txIndex: 3 }, 2));
  t.same([number.code, number.message], [-32602, 'invalid argument 2: json: cannot unmarshal non-string into Go struct field TraceCallConfig.txIndex of type hexutil.Uint']);
  t.equal(rpcErrorOf(() => parseTraceCallExtras({ txIndex: '3' }, 2)).message, 'invalid argument 2: hex string without 0x prefix');
  t.equal(rpcErrorOf(() => parseTraceCallExtras({ txIndex: '0x01' }, 2)).message, 'invalid argument 2: hex number with leading zero digits');
});

t.test('the StateAccessResponse shape', async (t) => {
  const access: StateAccess = {
    modules: new Map([
      ['bank', { reads: new Map([['c0ffee', ''], ['beef', '0a']]), has: [] }],
      ['evm', { reads: new Map([['0aabcd', '0000000000000001']]), has: ['07abcd'] }],
    ]),
    lookups: [{ endpoint: 'Tx', arguments: ['0x01'], response: { height: '5', index: 0 } }],
    receipt: {
      blockNumber: 5,
      contractAddress: null,
      cumulativeGasUsed: 21000n,
      effectiveGasPrice: 10n ** 9n,
      from: Buffer.from('11'.repeat(20), 'hex'),
      to: Buffer.from('22'.repeat(20), 'hex'),
      gasUsed: 21000n,
      status: 1,
      type: 2,
      transactionHash: Buffer.from('33'.repeat(32), 'hex'),
      transactionIndex: 0,
    },
  };
  const json = formatStateAccess(access);
  t.same(json, {
    app: {
      modules: {
        bank: { reads: { c0ffee: '', beef: '0a' }, has: [] },
        evm: { reads: { '0aabcd': '0000000000000001' }, has: ['07abcd'] },
      },
    },
    tendermint: { traces: [{ endpoint: 'Tx', arguments: ['0x01'], response: { height: '5', index: 0 } }] },
    receipt: {
      traces: [
        {
          blockNumber: '0x5',
          contractAddress: null,
          cumulativeGasUsed: '0x5208',
          effectiveGasPrice: '0x3b9aca00',
          from: `0x${'11'.repeat(20)}`,
          to: `0x${'22'.repeat(20)}`,
          gasUsed: '0x5208',
          status: '0x1',
          type: '0x2',
          transactionHash: `0x${'33'.repeat(32)}`,
          transactionIndex: '0x0',
        },
      ],
    },
  });
  t.same(Object.keys(json as object), ['app', 'tendermint', 'receipt'], 'top-level order');
});
