/**
 * `stratad doctor`'s diagnosis: reads a node's log (plain or JSON lines) and, when given,
 * samples of its consensus RPC (/status, /net_info, /lag_status), and names what is wrong in
 * the order the spec's troubleshooting guide checks it: an app-hash mismatch first; peer
 * handshake errors (symptoms when an app-hash mismatch exists, the primary problem otherwise);
 * a height that does not increase; a growing lag; repeated timeouts; a full mempool; then each
 * operator error message with its remedy.
 */

/** One sample of the node's consensus RPC. */
export interface RpcSample {
  /** When it was taken (ms since the epoch). */
  readonly atMs: number;
  readonly height: number;
  readonly catchingUp: boolean;
  /** Why block sync stopped, when it did (`sync_info.halted`). */
  readonly halted?: string;
  readonly peers: number;
  readonly lag: number;
  readonly maxPeerHeight: number;
}

/** One problem found, with the lines that show it and what to do. */
export interface Finding {
  /** Stable identifier (`app-hash-mismatch`, `peer-handshake`, …). */
  readonly id: string;
  readonly title: string;
  /** False for a symptom of an earlier finding. */
  readonly primary: boolean;
  readonly evidence: readonly string[];
  readonly steps: readonly string[];
}

/** The operator error messages of the spec, each with its remedy. */
export const ERROR_TABLE: ReadonlyArray<{ id: string; message: string; pattern: RegExp; remedy: string }> = [
  { id: 'height-halted', message: 'Consensus failure - height halted', pattern: /Consensus failure - height halted/i, remedy: 'Check for upgrades or halts with `stratad status`.' },
  { id: 'private-validator-file', message: 'Private validator file not found', pattern: /Private validator file not found/i, remedy: 'Restore the key file (config/priv_validator_key.json) or fix its permissions.' },
  { id: 'duplicate-signature', message: 'Duplicate signature', pattern: /Duplicate signature/i, remedy: 'Stop the node immediately: it may be double signing. Check whether another machine runs the same validator key.' },
  { id: 'dial-refused', message: 'dial tcp … connection refused', pattern: /dial tcp \S+.*connection refused/i, remedy: 'Check connectivity to the peer and the firewall (P2P port 26656).' },
  { id: 'no-peers', message: 'No peers available', pattern: /No peers available/i, remedy: 'Check the peers with /net_info and the network configuration (persistent_peers, port 26656).' },
  { id: 'database-corrupted', message: 'Database is corrupted', pattern: /Database is corrupted/i, remedy: 'Reset the database (`stratad tendermint unsafe-reset-all`) or restore it from a backup or snapshot.' },
  {
    id: 'database-locked',
    message: 'failed to initialize database: resource temporarily unavailable',
    pattern: /failed to initialize database: resource temporarily unavailable/i,
    remedy: 'The node was not shut down properly: kill the node process (reboot if needed), then repeat the rollback or start.',
  },
];

const APP_HASH = /wrong Block\.Header\.AppHash/;
const PEER_HANDSHAKE = /handshake failed|failed to send PEX request|expected peer id mismatch/i;
const TIMEOUT = /timed out|timeout (?:exceeded|expired)|deadline exceeded/i;
const MEMPOOL_FULL = /mempool is full/i;
/** Timeouts in one log that make them "repeated". */
const REPEATED_TIMEOUTS = 3;

/** A log line reduced to searchable text: a JSON record's message and labels, or a plain line as is. */
function lineText(line: string): { text: string; labels: Record<string, unknown> } {
  if (line.startsWith('{')) {
    try {
      const record = JSON.parse(line) as Record<string, unknown>;
      const { level: _level, time: _time, msg, ...labels } = record;
      const labelText = Object.entries(labels).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`).join(' ');
      return { text: `${String(msg ?? '')} ${labelText}`.trim(), labels };
    } catch {
      // not JSON after all: searched as plain text
    }
  }
  return { text: line, labels: {} };
}

/** At most a few example lines, as evidence. */
function examples(lines: readonly string[], count: number): string[] {
  const shown = lines.slice(0, 3);
  return count > shown.length ? [...shown, `… ${count - shown.length} more`] : shown;
}

function appHashFinding(lines: ReadonlyArray<{ text: string; labels: Record<string, unknown> }>, samples: readonly RpcSample[]): Finding | undefined {
  const hits = lines.filter((l) => APP_HASH.test(l.text));
  const halted = samples.find((s) => s.halted && APP_HASH.test(s.halted))?.halted;
  if (hits.length === 0 && halted === undefined) return undefined;
  const source = hits.at(-1)?.text ?? halted ?? '';
  const [, expected, got] = /Expected ([0-9A-Fa-f]+), got ([0-9A-Fa-f]+)/.exec(source) ?? [];
  const [, height] = /\(block (\d+)/.exec(source) ?? [];
  const [, blockId] = /block id ([0-9A-Fa-f]+)/.exec(source) ?? [];
  return {
    id: 'app-hash-mismatch',
    title: 'App-hash mismatch (wrong Block.Header.AppHash): this node\'s state differs from the chain',
    primary: true,
    evidence: [
      ...examples(hits.map((l) => l.text), hits.length),
      ...(halted !== undefined ? [`/status sync_info.halted: ${halted}`] : []),
      'Report these fields:',
      `  app hash: expected ${expected ?? '?'} (the chain's), got ${got ?? '?'} (this node's)`,
      `  commit hash (block id): ${blockId ?? '?'}`,
      `  height: ${height ?? '?'}`,
    ],
    steps: [
      'Stop the node.',
      'Run `stratad rollback --home <home>` (repeat it if the mismatch persists after a restart).',
      'If that fails, restore from a fresh snapshot from a trusted provider, with the correct node version and the current peer configuration.',
      'Restart the node and watch the logs.',
      'Likely causes: a wrong node version during sync; corrupted or wrongly applied snapshots; inconsistent databases after an improper shutdown; syncing with outdated or incompatible peers.',
    ],
  };
}

/** The findings for a log and RPC samples, in the order the spec checks them. */
export function diagnose(log: string, samples: readonly RpcSample[] = []): Finding[] {
  const lines = log.split('\n').filter((l) => l.trim() !== '').map(lineText);
  const findings: Finding[] = [];
  const appHash = appHashFinding(lines, samples);
  if (appHash) findings.push(appHash);

  const handshakes = lines.filter((l) => PEER_HANDSHAKE.test(l.text));
  if (handshakes.length > 0) {
    findings.push(
      appHash
        ? {
            id: 'peer-handshake',
            title: 'Peer handshake errors — most likely symptoms of the app-hash mismatch above',
            primary: false,
            evidence: examples(handshakes.map((l) => l.text), handshakes.length),
            steps: ['Fix the app-hash mismatch first; change peers only if these errors remain afterwards.'],
          }
        : {
            id: 'peer-handshake',
            title: 'Peer handshake errors (no app-hash mismatch in the log, so the peers are the problem)',
            primary: true,
            evidence: examples(handshakes.map((l) => l.text), handshakes.length),
            steps: [
              'Outdated peer ids: check each persistent_peers entry <node_id>@<host>:<port> against the peer\'s current id (its /status node_info.id).',
              'Peer infrastructure changes: the peer may have moved to another host or been rebuilt with a new node key; ask its operator.',
              'A firewall blocking port 26656 on either side.',
              'DNS problems: check that the peers\' host names resolve to the right addresses.',
            ],
          },
    );
  }

  if (samples.length >= 2) {
    const first = samples[0]!;
    const last = samples.at(-1)!;
    const seconds = Math.round((last.atMs - first.atMs) / 1000);
    if (last.height <= first.height) {
      findings.push({
        id: 'height-stuck',
        title: `The height does not increase (${last.height} over ${seconds} s)`,
        primary: true,
        evidence: [
          `/status latest_block_height: ${samples.map((s) => s.height).join(' → ')}`,
          `peers: ${last.peers}, max peer height: ${last.maxPeerHeight}, catching up: ${last.catchingUp}`,
          ...(last.halted ? [`halted: ${last.halted}`] : []),
        ],
        steps: [
          last.peers === 0 ? 'The node has no peers: see the peer findings, /net_info and persistent_peers.' : 'Check the log for the error that stopped block sync or production.',
          'Compare with another node\'s height (`stratad status`) to tell a chain halt from a stuck node.',
        ],
      });
    }
    if (last.lag > first.lag) {
      findings.push({
        id: 'lag-growing',
        title: `The lag behind the best peer grows (${first.lag} → ${last.lag} blocks in ${seconds} s)`,
        primary: true,
        evidence: [`/lag_status lag: ${samples.map((s) => s.lag).join(' → ')}; max peer height ${last.maxPeerHeight}`],
        steps: ['The node applies blocks slower than the chain makes them: check disk and CPU, and block stage timings on /metrics (strata_block_stage_duration_seconds).'],
      });
    }
  }

  const timeouts = lines.filter((l) => TIMEOUT.test(l.text));
  if (timeouts.length >= REPEATED_TIMEOUTS) {
    findings.push({
      id: 'repeated-timeouts',
      title: `Repeated timeouts (${timeouts.length} in the log)`,
      primary: true,
      evidence: examples(timeouts.map((l) => l.text), timeouts.length),
      steps: ['Check the network path to the peers named, their load, and this node\'s CPU and disk.'],
    });
  }

  const full = lines.filter((l) => MEMPOOL_FULL.test(l.text));
  if (full.length > 0) {
    findings.push({
      id: 'mempool-full',
      title: 'The mempool is at its limit',
      primary: true,
      evidence: examples(full.map((l) => l.text), full.length),
      steps: ['Blocks do not drain the mempool fast enough: check that the height increases; raise [mempool] size only if the node keeps up.'],
    });
  }

  for (const entry of ERROR_TABLE) {
    const hits = lines.filter((l) => entry.pattern.test(l.text));
    if (hits.length === 0) continue;
    findings.push({ id: entry.id, title: entry.message, primary: true, evidence: examples(hits.map((l) => l.text), hits.length), steps: [entry.remedy] });
  }
  return findings;
}

/** The diagnosis as an operator reads it. */
export function renderDiagnosis(findings: readonly Finding[], checked: { logLines: number; rpcSamples: number }): string {
  const out = [`Checked ${checked.logLines} log lines${checked.rpcSamples > 0 ? ` and ${checked.rpcSamples} samples of /status, /net_info and /lag_status` : ''}.`];
  if (findings.length === 0) return `${out[0]}\nNo problem found.\n`;
  findings.forEach((finding, i) => {
    out.push('', `${i + 1}. ${finding.primary ? '' : '[symptom] '}${finding.title}`);
    for (const line of finding.evidence) out.push(`   ${line}`);
    out.push('   What to do:');
    finding.steps.forEach((step, n) => out.push(`   ${n + 1}) ${step}`));
  });
  return `${out.join('\n')}\n`;
}
