/**
 * Read throughput: the test ERC-20 (test/fixtures/token.json) deployed from a funded account,
 * then `eth_getBalance` and `eth_call balanceOf` driven by the raw-socket load generator at a
 * fixed number of keep-alive connections.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fixturePath } from '../fixture-path.js';
import { runLoad, type LoadResult } from '../rpc/load.js';
import { RpcClient } from './rpc-client.js';
import { createdAddress, hex, signEip1559 } from './sign.js';

const TOKEN_JSON = fixturePath('token.json');
const BALANCE_OF = '70a08231';
/** What the Token mints to its deployer. */
export const TOKEN_SUPPLY = 10n ** 27n;

/** A 32-byte ABI word of an unsigned integer. */
function word(value: bigint | number): string {
  return BigInt(value).toString(16).padStart(64, '0');
}

/** ABI encoding of the Token constructor (string name, string symbol, uint256 supply), short strings only. */
function constructorArgs(name: string, symbol: string, supply: bigint): string {
  const str = (s: string) => {
    const bytes = Buffer.from(s, 'utf8');
    if (bytes.length > 32) throw new RangeError('constructor strings longer than 32 bytes are not needed here');
    return word(bytes.length) + bytes.toString('hex').padEnd(64, '0');
  };
  return word(0x60) + word(0xa0) + word(supply) + str(name) + str(symbol);
}

/** The Token's creation code with its constructor arguments. */
function tokenDeployData(): Buffer {
  const artifact = JSON.parse(readFileSync(TOKEN_JSON, 'utf8')) as { bytecode: string };
  return Buffer.from(artifact.bytecode.replace(/^0x/, '') + constructorArgs('Bench', 'BNC', TOKEN_SUPPLY), 'hex');
}

/** A signed transaction deploying the Token from `privateKey` at `nonce`, and the address it creates. */
export function signTokenDeploy(privateKey: string, sender: string, nonce: bigint, chainId: number): { raw: string; address: string } {
  const raw = signEip1559(
    {
      chainId: BigInt(chainId),
      nonce,
      maxPriorityFeePerGas: 1_000_000_000n,
      maxFeePerGas: 100_000_000_000n,
      gasLimit: 3_000_000n,
      to: null,
      value: 0n,
      data: tokenDeployData(),
    },
    Buffer.from(privateKey.slice(2), 'hex'),
  );
  return { raw: hex(raw), address: hex(createdAddress(Buffer.from(sender.slice(2), 'hex'), nonce)) };
}

/** Thrown when the Token deployment does not succeed. */
export class DeployFailedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DeployFailedError';
  }
}

/** Sends the deployment and waits for a successful receipt whose contract holds the Token's supply. */
export async function deployToken(port: number, deploy: { raw: string; address: string }, holder: string, timeoutMs = 60_000): Promise<void> {
  const client = new RpcClient(port, 1);
  try {
    const hash = await client.call<string>('eth_sendRawTransaction', [deploy.raw]);
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const receipt = await client.call<{ status: string; contractAddress: string | null } | null>('eth_getTransactionReceipt', [hash]);
      if (receipt) {
        if (receipt.status !== '0x1') throw new DeployFailedError(`Token deployment ${hash} reverted`);
        if (receipt.contractAddress?.toLowerCase() !== deploy.address) {
          throw new DeployFailedError(`Token deployed at ${receipt.contractAddress}, expected ${deploy.address}`);
        }
        break;
      }
      if (performance.now() > deadline) throw new DeployFailedError(`Token deployment ${hash} not mined after ${timeoutMs} ms`);
      await sleep(50);
    }
    const balance = await client.call<string>('eth_call', [{ to: deploy.address, data: balanceOfData(holder) }, 'latest']);
    if (BigInt(balance) !== TOKEN_SUPPLY) throw new DeployFailedError(`balanceOf(deployer) is ${balance}, expected the whole supply`);
  } finally {
    client.close();
  }
}

/** Calldata of `balanceOf(holder)`. */
export function balanceOfData(holder: string): string {
  return `0x${BALANCE_OF}${holder.slice(2).toLowerCase().padStart(64, '0')}`;
}

/** The read requests the benchmark drives. */
export interface ReadBodies {
  getBalance: string[];
  /** The same `balanceOf(holder)` over and over. */
  ethCall: string[];
  /** `balanceOf` of a different address each request (no two alike within the cycle). */
  ethCallDistinct: string[];
}

/** Distinct `balanceOf` arguments per run: more than a run sends, so none repeats. */
const DISTINCT_HOLDERS = 200_000;

/** JSON-RPC bodies: the balance of `holder`, and the Token's `balanceOf(holder)`. */
export function readBodies(holder: string, token: string): ReadBodies {
  const call = (who: string) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_call', params: [{ to: token, data: balanceOfData(who) }, 'latest'] });
  const distinct: string[] = [];
  for (let i = 0; i < DISTINCT_HOLDERS; i++) distinct.push(call(`0x${(0xb0000000 + i).toString(16).padStart(40, '0')}`));
  return {
    getBalance: [JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [holder, 'latest'] })],
    ethCall: [call(holder)],
    ethCallDistinct: distinct,
  };
}

/** Drives read bodies (cycled) at `connections` connections for `seconds` after a 1 s warm-up. */
export function runReads(port: number, bodies: readonly string[], connections: number, seconds: number): Promise<LoadResult> {
  return runLoad({ port, body: bodies[0]!, bodies, connections, durationMs: seconds * 1000, warmupMs: 1000 });
}
