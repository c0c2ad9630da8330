/**
 * A JSON-RPC batch of eth_sendRawTransaction is admitted together (senders recovered in one
 * native batch), and every request still gets its own answer: the hash of an admitted tx, and
 * for a refused one exactly the error it gets when sent alone. The admitted txs land in blocks
 * with the right senders.
 */
import t from 'tap';
import { keccak256, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { devAccounts } from '../../src/chain/genesis-file.js';
import { initHome, startNode } from './fixtures/node-process.js';
import { rawRpc, rpcResult } from './fixtures/rpc-client.js';

type Answer = { id: number; result?: string; error?: { code: number; message: string } };

const send = (raw: string, id = 1): string => JSON.stringify({ jsonrpc: '2.0', id, method: 'eth_sendRawTransaction', params: [raw] });

t.test('a batch of raw transactions: one answer each, as when sent alone', async (t) => {
  const home = await initHome(t, 500);
  await startNode(t, home);
  const [a, b, c] = devAccounts(3).map((acct) => privateKeyToAccount(acct.privateKey as Hex));
  const to = '0x00000000000000000000000000000000c0ffee02';
  const chainId = 713715;
  const fees = { maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 9n, gas: 21000n };
  const sign = (account: typeof a, nonce: number, extra: Record<string, bigint> = {}): Promise<Hex> =>
    account!.signTransaction({ chainId, to, value: 1000n + BigInt(nonce), nonce, ...fees, ...extra });

  const fromA = await Promise.all(Array.from({ length: 12 }, (_, n) => sign(a, n)));
  const fromB = await Promise.all(Array.from({ length: 6 }, (_, n) => sign(b, n)));
  // C sends nothing else, so its gap reads the same alone and in the batch.
  const gap = await sign(c, 40);
  const underpriced = await sign(a, 12, { maxFeePerGas: 1n, maxPriorityFeePerGas: 1n });
  const good = await sign(b, 6);
  const forged = `${good.slice(0, -6)}${good.slice(-6, -4) === 'ff' ? '00' : 'ff'}${good.slice(-4)}` as Hex;
  const legacyOtherChain = await b!.signTransaction({ chainId: 1, to, value: 1n, nonce: 0, gasPrice: 10n ** 10n, gas: 21000n });
  const refused = { garbage: '0xdeadbeef', gap, underpriced, forged, legacyOtherChain } as const;

  // Each refused tx alone first: refusals change nothing, so the batch must answer the same.
  const alone: Record<string, Answer> = {};
  for (const [name, raw] of Object.entries(refused)) {
    alone[name] = (await rawRpc(home.http, send(raw))).json as Answer;
    t.ok(alone[name]!.error, `${name} is refused alone`);
  }

  // A's and B's transactions interleaved with the refused ones, and one of A's sent twice.
  const batch: Array<{ raw: string; expect: string }> = [];
  fromA.forEach((raw, i) => {
    batch.push({ raw, expect: 'ok' });
    if (i < fromB.length) batch.push({ raw: fromB[i]!, expect: 'ok' });
    if (i === 3) batch.push({ raw: fromA[2]!, expect: 'known' });
  });
  Object.entries(refused).forEach(([name, raw], i) => batch.splice(3 + i * 4, 0, { raw, expect: name }));
  const body = `[${batch.map(({ raw }, id) => send(raw, id)).join(',')}]`;
  const answers = (await rawRpc(home.http, body)).json as Answer[];
  t.equal(answers.length, batch.length, 'one answer per request');
  let admitted = 0;
  batch.forEach(({ raw, expect }, id) => {
    const answer = answers.find((x) => x.id === id);
    if (expect === 'ok') {
      admitted++;
      t.same(answer, { jsonrpc: '2.0', id, result: keccak256(raw as Hex) }, `request ${id} is admitted with its hash`);
    } else if (expect === 'known') {
      t.match(answer, { id, error: { message: /already known/ } }, 'the repeated tx is already known');
    } else {
      t.same(answer, { ...alone[expect], id }, `${expect}: the same error in the batch as alone`);
    }
  });
  t.equal(admitted, fromA.length + fromB.length);

  // Every admitted tx lands with its signer as the sender.
  const last = fromA[fromA.length - 1]!;
  type Receipt = { from?: string; status?: string } | null;
  let receipt = null as Receipt;
  for (let i = 0; i < 200 && !receipt; i++) {
    receipt = (await rpcResult(home.http, 'eth_getTransactionReceipt', [keccak256(last)])) as Receipt;
    if (!receipt) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  t.equal(receipt?.from, a!.address.toLowerCase(), 'the last of A’s transactions landed from A');
  for (const raw of [...fromA, ...fromB]) {
    const tx = (await rpcResult(home.http, 'eth_getTransactionByHash', [keccak256(raw)])) as { from: string; blockNumber: string | null } | null;
    const expected = fromA.includes(raw) ? a!.address : b!.address;
    if (!tx || tx.from !== expected.toLowerCase() || tx.blockNumber === null) {
      t.fail(`transaction ${keccak256(raw)} did not land from ${expected}`);
      return;
    }
  }
  t.pass('all 18 transactions landed from their signers');
});
