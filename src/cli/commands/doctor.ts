/**
 * `stratad doctor [--log <file>|-] [--rpc <url>] [--interval <s>] [--home <dir>]`: reads a
 * node's log (a file, `-` for stdin, or the home's `[log] file`) and, with --rpc, samples its
 * /status, /net_info and /lag_status twice; prints the diagnosis in the order the spec's
 * troubleshooting guide checks things. Exits 1 when it found a problem, 0 otherwise.
 */
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Command, Option } from 'clipanion';
import { loadConfig } from '../../config/index.js';
import { diagnose, renderDiagnosis, type RpcSample } from '../../node/doctor.js';
import { defaultHome } from '../../node/home.js';

/** Thrown when the consensus RPC cannot be read; the message says what to check. */
class RpcUnreachableError extends Error {
  constructor(url: string, reason: string) {
    super(`cannot read ${url} (${reason}); is the node running, and is --rpc its consensus RPC (default port 26657)?`);
    this.name = 'RpcUnreachableError';
  }
}

async function getResult(base: string, path: string): Promise<Record<string, unknown>> {
  const url = `${base.replace(/\/$/, '')}${path}`;
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  } catch (error) {
    throw new RpcUnreachableError(url, error instanceof Error ? error.message : String(error));
  }
  // /lag_status answers 417 past the lag threshold, with the same body.
  const body = (await response.json().catch(() => undefined)) as { result?: Record<string, unknown> } | undefined;
  if (!body?.result) throw new RpcUnreachableError(url, `HTTP ${response.status} without a result`);
  return body.result;
}

async function sample(base: string): Promise<RpcSample> {
  const [status, netInfo, lag] = await Promise.all([getResult(base, '/status'), getResult(base, '/net_info'), getResult(base, '/lag_status')]);
  const sync = status['sync_info'] as { latest_block_height: string; catching_up: boolean; halted?: string };
  return {
    atMs: Date.now(),
    height: Number(sync.latest_block_height),
    catchingUp: sync.catching_up,
    ...(sync.halted !== undefined ? { halted: sync.halted } : {}),
    peers: Number(netInfo['n_peers'] ?? (netInfo['peers'] as unknown[] | undefined)?.length ?? 0),
    lag: Number(lag['lag']),
    maxPeerHeight: Number(lag['max_peer_height']),
  };
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export class DoctorCommand extends Command {
  static override paths = [['doctor']];
  static override usage = Command.Usage({
    description: "diagnose a node from its log and its consensus RPC, in the troubleshooting guide's order",
    examples: [
      ['Diagnose a log file', 'stratad doctor --log /var/log/strata.log'],
      ['Diagnose a log piped in, and the running node', 'journalctl -u stratad | stratad doctor --log - --rpc http://127.0.0.1:26657'],
    ],
  });

  home = Option.String('--home', defaultHome(), { description: "the node home, for its [log] file when --log is not given (default ~/.strata)" });
  log = Option.String('--log', { description: 'the log file to read, or - for standard input' });
  rpc = Option.String('--rpc', { description: 'the consensus RPC to sample, e.g. http://127.0.0.1:26657' });
  interval = Option.String('--interval', '5', { description: 'seconds between the two RPC samples (default 5)' });

  override async execute(): Promise<number> {
    let log: string;
    try {
      log = await this.#readLog();
    } catch (error) {
      this.context.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      return 2;
    }
    const samples: RpcSample[] = [];
    if (this.rpc !== undefined) {
      const seconds = Number(this.interval);
      if (!Number.isFinite(seconds) || seconds < 0) {
        this.context.stderr.write(`--interval ${this.interval} is not a number of seconds; give e.g. --interval 5\n`);
        return 2;
      }
      try {
        samples.push(await sample(this.rpc));
        await sleep(seconds * 1000);
        samples.push(await sample(this.rpc));
      } catch (error) {
        this.context.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
        return 2;
      }
    }
    const findings = diagnose(log, samples);
    this.context.stdout.write(renderDiagnosis(findings, { logLines: log.split('\n').filter((l) => l.trim() !== '').length, rpcSamples: samples.length }));
    return findings.length > 0 ? 1 : 0;
  }

  async #readLog(): Promise<string> {
    if (this.log === '-') return readStdin();
    if (this.log !== undefined) {
      if (!existsSync(this.log)) throw new Error(`${this.log} does not exist; give the node's log file with --log, or - to read standard input`);
      return readFileSync(this.log, 'utf8');
    }
    const file = existsSync(join(this.home, 'config', 'config.toml')) ? (await loadConfig(this.home)).node.log.file : '';
    if (file) {
      const path = isAbsolute(file) ? file : join(this.home, file);
      if (existsSync(path)) return readFileSync(path, 'utf8');
    }
    if (this.rpc !== undefined) return '';
    throw new Error('no log to read: give --log <file> (or --log - for standard input), set [log] file in config.toml, or --rpc to check the running node only');
  }
}
