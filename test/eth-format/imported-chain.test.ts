/**
 * Blocks, transactions and receipts of an imported Ethereum chain as eth_ renders them, checked
 * against the chain file itself: the execution-apis test chain (test/fixtures/conformance/
 * execution-apis-debug, see SOURCES.md there), whose 54 blocks run from Frontier rules through
 * the merge, Shanghai (withdrawals), Cancun (blob transactions), Prague (an EIP-7702
 * transaction) and Osaka to two blob-parameter forks, with uncles on its proof-of-work blocks.
 * Every header field comes from that block's own header, `size` is the length of the block's
 * RLP in the file, blob and set-code fields are those the raw transactions carry, a blob
 * receipt's blob base fee follows EIP-4844's formula with each fork's update fraction
 * (forkenv.json), and viem and ethers v6 parse all of it. Fees of calls and new transactions
 * are checked against the imported chain's base fee, not this chain's 1 gwei.
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decode as rlpDecode, encode as rlpEncode } from '@ethereumjs/rlp';
import { JsonRpcProvider } from 'ethers';
import { createPublicClient, http } from 'viem';

import { startImportedNode, type ImportedNode } from '../conformance/imported-node.js';
import { SUITE_ROOT } from '../conformance/execution-apis.js';
import { signEip1559 } from '../../bench/node/sign.js';
import { keccak256 } from '../../src/util/keccak.js';

type Json = Record<string, unknown>;
type Rlp = Uint8Array | Rlp[];

const hex = (b: Uint8Array): string => `0x${Buffer.from(b).toString('hex')}`;
const qty = (b: Uint8Array): string => `0x${b.length === 0 ? '0' : BigInt(hex(b)).toString(16)}`;
const big = (b: Uint8Array): bigint => (b.length === 0 ? 0n : BigInt(hex(b)));
const keccak = (b: Uint8Array): string => hex(keccak256(b));

/** A signed 21,000-gas transfer paying `maxFeePerGas`, with no tip. */
function signTransfer(key: Uint8Array, chainId: bigint, maxFeePerGas: bigint): string {
  const to = Buffer.alloc(20, 1);
  return hex(signEip1559({ chainId, nonce: 0n, maxPriorityFeePerGas: 0n, maxFeePerGas, gasLimit: 21_000n, to, value: 0n, data: new Uint8Array() }, key));
}

/** One block of the chain file: its decoded RLP and the length of its encoding. */
interface FileBlock {
  header: Uint8Array[];
  headerRlp: Uint8Array;
  txs: Rlp[];
  uncles: Rlp[];
  withdrawals: Uint8Array[][] | undefined;
  size: number;
}

function readChain(): FileBlock[] {
  let rest: Uint8Array = readFileSync(join(SUITE_ROOT, 'chain.rlp'));
  const blocks: FileBlock[] = [];
  while (rest.length > 0) {
    const item = rlpDecode(rest, true) as unknown as { data: Rlp[]; remainder: Uint8Array };
    const [header, txs, uncles, withdrawals] = item.data as [Uint8Array[], Rlp[], Rlp[], Uint8Array[][] | undefined];
    blocks.push({ header, headerRlp: rlpEncode(header), txs, uncles, withdrawals, size: rest.length - item.remainder.length });
    rest = item.remainder;
  }
  return blocks;
}

async function rpc(node: ImportedNode, method: string, params: unknown[]): Promise<{ result?: unknown; error?: { code: number; message: string } }> {
  const response = await fetch(`http://127.0.0.1:${node.http}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await response.json()) as { result?: unknown; error?: { code: number; message: string } };
}

async function result<T>(node: ImportedNode, method: string, params: unknown[]): Promise<T> {
  const answer = await rpc(node, method, params);
  if (answer.error !== undefined) throw new Error(`${method} failed: ${answer.error.message}`);
  return answer.result as T;
}

/** EIP-4844's fake_exponential(1, excess, fraction): the blob base fee. */
function blobBaseFee(excess: bigint, fraction: bigint): bigint {
  let i = 1n;
  let output = 0n;
  let accum = fraction;
  while (accum > 0n) {
    output += accum;
    accum = (accum * excess) / (fraction * i);
    i += 1n;
  }
  return output / fraction;
}

/** The blob base-fee update fraction at `timestamp`, from the chain's fork environment. */
function updateFraction(timestamp: bigint): bigint {
  const env = JSON.parse(readFileSync(join(SUITE_ROOT, 'forkenv.json'), 'utf8')) as Record<string, string>;
  const forks = ['BPO2', 'BPO1', 'OSAKA', 'PRAGUE', 'CANCUN'];
  for (const fork of forks) {
    if (timestamp >= BigInt(env[`HIVE_${fork}_TIMESTAMP`]!)) return BigInt(env[`HIVE_${fork}_BLOB_BASE_FEE_UPDATE_FRACTION`]!);
  }
  throw new Error(`no blob schedule at ${timestamp}`);
}

const chain = readChain();
let node: ImportedNode;

t.before(async () => {
  node = await startImportedNode(join(SUITE_ROOT, 'genesis.json'), join(SUITE_ROOT, 'chain.rlp'));
});
t.teardown(async () => {
  await node?.stop();
});

t.test('every imported block is rendered from its own header and body', async (t) => {
  for (const [i, file] of chain.entries()) {
    const number = i + 1;
    const h = file.header;
    const block = await result<Json>(node, 'eth_getBlockByNumber', [`0x${number.toString(16)}`, false]);
    const label = `block ${number}`;
    const expected: Json = {
      hash: keccak(file.headerRlp),
      parentHash: hex(h[0]!),
      sha3Uncles: hex(h[1]!),
      miner: hex(h[2]!),
      stateRoot: hex(h[3]!),
      transactionsRoot: hex(h[4]!),
      receiptsRoot: hex(h[5]!),
      logsBloom: hex(h[6]!),
      difficulty: qty(h[7]!),
      number: qty(h[8]!),
      gasLimit: qty(h[9]!),
      gasUsed: qty(h[10]!),
      timestamp: qty(h[11]!),
      extraData: hex(h[12]!),
      mixHash: hex(h[13]!),
      nonce: hex(h[14]!),
      size: `0x${file.size.toString(16)}`,
      uncles: file.uncles.map((u) => keccak(rlpEncode(u as never))),
    };
    const optional: Array<[string, number, (b: Uint8Array) => string]> = [
      ['baseFeePerGas', 15, qty],
      ['withdrawalsRoot', 16, hex],
      ['blobGasUsed', 17, qty],
      ['excessBlobGas', 18, qty],
      ['parentBeaconBlockRoot', 19, hex],
      ['requestsHash', 20, hex],
    ];
    for (const [name, index, render] of optional) {
      if (h.length > index) expected[name] = render(h[index]!);
      else t.notOk(name in block, `${label} has no ${name}: its header has none`);
    }
    if (file.withdrawals !== undefined) {
      expected.withdrawals = file.withdrawals.map((w) => ({ index: qty(w[0]!), validatorIndex: qty(w[1]!), address: hex(w[2]!), amount: qty(w[3]!) }));
    } else t.notOk('withdrawals' in block, `${label} has no withdrawals before Shanghai`);
    t.match(block, expected, `${label} matches its header and body`);
  }
  t.ok(chain.some((b) => b.uncles.length > 0), 'the chain has blocks with uncles');
  t.ok(chain.some((b) => b.header.length < 16), 'and pre-London blocks');
});

/** The header RLP fields of a rendered block, in header order (the optional tail only where the block shows it). */
function headerFieldsOf(block: Json): Uint8Array[] {
  const bytes = (v: unknown): Uint8Array => Buffer.from(String(v).slice(2), 'hex');
  const int = (v: unknown): Uint8Array => {
    const n = BigInt(String(v));
    return n === 0n ? new Uint8Array() : Buffer.from(n.toString(16).padStart(Math.ceil(n.toString(16).length / 2) * 2, '0'), 'hex');
  };
  const fields = [
    bytes(block.parentHash), bytes(block.sha3Uncles), bytes(block.miner), bytes(block.stateRoot), bytes(block.transactionsRoot),
    bytes(block.receiptsRoot), bytes(block.logsBloom), int(block.difficulty), int(block.number), int(block.gasLimit), int(block.gasUsed),
    int(block.timestamp), bytes(block.extraData), bytes(block.mixHash), bytes(block.nonce),
  ];
  const tail: Array<[string, (v: unknown) => Uint8Array]> = [
    ['baseFeePerGas', int], ['withdrawalsRoot', bytes], ['blobGasUsed', int], ['excessBlobGas', int], ['parentBeaconBlockRoot', bytes], ['requestsHash', bytes],
  ];
  for (const [name, encode] of tail) {
    if (!(name in block)) break;
    fields.push(encode(block[name]));
  }
  return fields;
}

t.test('the genesis is rendered from its real header: the one whose hash block 1 names', async (t) => {
  const genesis = await result<Json>(node, 'eth_getBlockByNumber', ['0x0', false]);
  const genesisHash = hex(chain[0]!.header[0]!);
  const fields = headerFieldsOf(genesis);
  const header = rlpEncode(fields as never);
  t.equal(keccak(header), genesisHash, 'every rendered header field (stateRoot too) hashes to the genesis hash block 1 names');
  // A block without transactions or uncles: RLP([header, [], []]).
  t.equal(genesis.size, `0x${rlpEncode([fields, [], []] as never).length.toString(16)}`, 'size is the RLP size of the genesis block');
  t.not(genesis.stateRoot, `0x${'00'.repeat(32)}`, 'the state root is the alloc\'s, not a placeholder');
  t.equal(genesis.transactionsRoot, keccak(rlpEncode(new Uint8Array())), 'the empty transactions root');
  t.equal(genesis.sha3Uncles, keccak(rlpEncode([])), 'and the empty uncle hash');
});

t.test('the genesis of an imported chain shows its genesis file, and an unknown hash is null', async (t) => {
  const genesis = await result<Json>(node, 'eth_getBlockByNumber', ['0x0', false]);
  t.equal(genesis.hash, hex(chain[0]!.header[0]!), 'the genesis is served under its Ethereum hash');
  t.equal(genesis.difficulty, '0x20000', 'with the genesis difficulty');
  t.equal(genesis.extraData, '0x68697665636861696e', 'and extra data');
  t.notOk('baseFeePerGas' in genesis, 'and no base fee before London');
  t.same(await result(node, 'eth_getBlockByHash', [hex(chain[0]!.header[0]!), false]).then((b) => (b as Json).number), '0x0', 'found by its hash');
  t.equal(await result(node, 'eth_getBlockByHash', [`0x${'00'.repeat(31)}01`, false]), null, 'an unknown hash names no block');
  t.equal(await result(node, 'eth_getBlockByHash', [`0x${'00'.repeat(32)}`, false]), null, 'nor does the zero hash on an imported chain');
});

/** The raw typed transactions of the chain file with their block numbers. */
function typedTxs(type: number): Array<{ block: number; raw: Uint8Array; fields: Rlp[] }> {
  const out: Array<{ block: number; raw: Uint8Array; fields: Rlp[] }> = [];
  chain.forEach((b, i) => {
    for (const tx of b.txs) {
      if (tx instanceof Uint8Array && tx[0] === type) out.push({ block: i + 1, raw: tx, fields: rlpDecode(tx.subarray(1)) as Rlp[] });
    }
  });
  return out;
}

t.test('blob transactions and their receipts', async (t) => {
  const blobs = typedTxs(3);
  t.ok(blobs.length >= 5, `the chain holds ${blobs.length} blob transactions`);
  for (const { block, raw, fields } of blobs) {
    const hash = keccak(raw);
    const tx = await result<Json>(node, 'eth_getTransactionByHash', [hash]);
    const hashes = (fields[10] as Uint8Array[]).map(hex);
    t.match(tx, { type: '0x3', hash, maxFeePerBlobGas: qty(fields[9] as Uint8Array), maxFeePerGas: qty(fields[3] as Uint8Array), maxPriorityFeePerGas: qty(fields[2] as Uint8Array) }, `blob tx in block ${block}`);
    t.same(tx.blobVersionedHashes, hashes, 'with its versioned hashes');
    const header = chain[block - 1]!.header;
    const receipt = await result<Json>(node, 'eth_getTransactionReceipt', [hash]);
    t.equal(receipt.blobGasUsed, `0x${(BigInt(hashes.length) * 131072n).toString(16)}`, 'its receipt has the blob gas of its blobs');
    t.equal(receipt.blobGasPrice, `0x${blobBaseFee(big(header[18]!), updateFraction(big(header[11]!))).toString(16)}`, 'and its block\'s blob base fee');
    const inBlock = await result<Json[]>(node, 'eth_getBlockReceipts', [`0x${block.toString(16)}`]);
    t.same(inBlock.find((r) => r.transactionHash === hash), receipt, 'eth_getBlockReceipts gives the same receipt');
  }
  const plain = await result<Json>(node, 'eth_getTransactionReceipt', [keccak(typedTxs(2)[0]!.raw)]);
  t.notOk('blobGasUsed' in plain || 'blobGasPrice' in plain, 'a receipt of another type has no blob fields');
});

t.test('an EIP-7702 transaction carries its authorization list', async (t) => {
  const [setCode] = typedTxs(4);
  t.ok(setCode, 'the chain holds a set-code transaction');
  const { block, raw, fields } = setCode!;
  const tx = await result<Json>(node, 'eth_getTransactionByHash', [keccak(raw)]);
  const expected = (fields[9] as Uint8Array[][]).map((a) => ({ chainId: qty(a[0]!), address: hex(a[1]!), nonce: qty(a[2]!), yParity: qty(a[3]!), r: qty(a[4]!), s: qty(a[5]!) }));
  t.ok(expected.length > 0, 'with at least one authorization');
  t.match(tx, { type: '0x4', blockNumber: `0x${block.toString(16)}` }, 'type 4');
  t.same(tx.authorizationList, expected, 'each authorization as the transaction signs it');
  const full = await result<Json>(node, 'eth_getBlockByNumber', [`0x${block.toString(16)}`, true]);
  t.same((full.transactions as Json[]).find((x) => x.hash === keccak(raw)), tx, 'and the same in its full block');
});

t.test('viem and ethers v6 parse the blob and set-code fields', async (t) => {
  const url = `http://127.0.0.1:${node.http}`;
  const viem = createPublicClient({ transport: http(url) });
  const [blob] = typedTxs(3);
  const [setCode] = typedTxs(4);
  const vBlob = await viem.getTransaction({ hash: keccak(blob!.raw) as `0x${string}` });
  t.equal(vBlob.type, 'eip4844', 'viem: a blob transaction');
  t.equal(vBlob.blobVersionedHashes?.length, (blob!.fields[10] as Uint8Array[]).length, 'viem: its versioned hashes');
  t.equal(vBlob.maxFeePerBlobGas, big(blob!.fields[9] as Uint8Array), 'viem: its blob fee cap');
  const vReceipt = await viem.getTransactionReceipt({ hash: keccak(blob!.raw) as `0x${string}` });
  t.type(vReceipt.blobGasPrice, 'bigint', 'viem: the receipt\'s blob gas price');
  t.type(vReceipt.blobGasUsed, 'bigint', 'viem: and blob gas used');
  const vSetCode = await viem.getTransaction({ hash: keccak(setCode!.raw) as `0x${string}` });
  t.equal(vSetCode.type, 'eip7702', 'viem: a set-code transaction');
  t.equal(vSetCode.authorizationList?.[0]?.address, hex((setCode!.fields[9] as Uint8Array[][])[0]![1]!), 'viem: its authorization');
  const vBlock = await viem.getBlock({ blockNumber: BigInt(setCode!.block), includeTransactions: true });
  t.equal(vBlock.transactions.length, chain[setCode!.block - 1]!.txs.length, 'viem: a Prague block with its transactions');
  t.type(vBlock.parentBeaconBlockRoot, 'string', 'viem: and its beacon root');

  const ethers = new JsonRpcProvider(url, undefined, { batchMaxCount: 1 });
  t.teardown(() => ethers.destroy());
  const eBlob = await ethers.getTransaction(keccak(blob!.raw));
  t.equal(eBlob?.type, 3, 'ethers: a blob transaction');
  t.equal(eBlob?.blobVersionedHashes?.length, (blob!.fields[10] as Uint8Array[]).length, 'ethers: its versioned hashes');
  t.equal(eBlob?.maxFeePerBlobGas, big(blob!.fields[9] as Uint8Array), 'ethers: its blob fee cap');
  const eReceipt = await ethers.getTransactionReceipt(keccak(blob!.raw));
  t.type(eReceipt?.blobGasPrice, 'bigint', 'ethers: the receipt\'s blob gas price');
  const eSetCode = await ethers.getTransaction(keccak(setCode!.raw));
  t.equal(eSetCode?.type, 4, 'ethers: a set-code transaction');
  t.equal(eSetCode?.authorizationList?.[0]?.address.toLowerCase(), hex((setCode!.fields[9] as Uint8Array[][])[0]![1]!), 'ethers: its authorization');
  const eBlock = await ethers.getBlock(blob!.block, true);
  t.equal(eBlock?.prefetchedTransactions.length, chain[blob!.block - 1]!.txs.length, 'ethers: a Cancun block with its transactions');
  t.equal(eBlock?.hash, keccak(chain[blob!.block - 1]!.headerRlp), 'ethers: under its Ethereum hash');
});

t.test('calls and new transactions pay the imported chain\'s base fee, not this chain\'s', async (t) => {
  const head = chain[chain.length - 1]!.header;
  const headBaseFee = big(head[15]!);
  t.ok(headBaseFee < 1_000_000_000n, `the imported head's base fee (${headBaseFee} wei) is below this chain's 1 gwei`);
  const from = '0x7435ed30a8b4aeb0877cef0c6e8cffe834eb865f';
  const call = (maxFee: bigint) => ({ from, to: from, gas: '0x5208', maxFeePerGas: `0x${maxFee.toString(16)}`, maxPriorityFeePerGas: '0x0' });
  const ok = await rpc(node, 'eth_call', [call(headBaseFee), 'latest']);
  t.equal(ok.error, undefined, 'eth_call paying the head\'s base fee is accepted');
  t.equal(ok.result, '0x', 'and runs');
  const low = await rpc(node, 'eth_call', [call(headBaseFee - 1n), 'latest']);
  t.match(low.error?.message, /max fee per gas less than block base fee/, 'eth_call below it is refused');
  const estimate = await rpc(node, 'eth_estimateGas', [call(headBaseFee), 'latest']);
  t.equal(estimate.result, '0x5208', 'eth_estimateGas paying the head\'s base fee estimates');
  const estimateLow = await rpc(node, 'eth_estimateGas', [call(headBaseFee - 1n), 'latest']);
  t.match(estimateLow.error?.message, /max fee per gas less than block base fee/, 'and below it is refused');

  // Admission checks the fee against the base fee the head implies for the next block; an
  // unknown key has no funds, so a fee that passes is refused for funds instead.
  const next = nextBaseFee(head);
  const chainId = BigInt(await result<string>(node, 'eth_chainId', []));
  const key = Buffer.alloc(32, 7);
  const enough = await rpc(node, 'eth_sendRawTransaction', [signTransfer(key, chainId, next)]);
  t.match(enough.error?.message, /insufficient funds/, 'a transaction paying the next base fee passes the fee check');
  const short = await rpc(node, 'eth_sendRawTransaction', [signTransfer(key, chainId, next - 1n)]);
  t.match(short.error?.message, /max fee per gas less than block base fee/, 'one below it does not');
});

/** EIP-1559's base fee of the block after `header` (elasticity 2, change denominator 8). */
function nextBaseFee(header: Uint8Array[]): bigint {
  const baseFee = big(header[15]!);
  const gasLimit = big(header[9]!);
  const gasUsed = big(header[10]!);
  const target = gasLimit / 2n;
  if (gasUsed === target) return baseFee;
  if (gasUsed > target) {
    const delta = (baseFee * (gasUsed - target)) / target / 8n;
    return baseFee + (delta > 1n ? delta : 1n);
  }
  return baseFee - (baseFee * (target - gasUsed)) / target / 8n;
}
