/** The consensus RPC over a real transport: envelopes, /lag_status's 417, height errors, /metrics. */
import t from 'tap';
import { Counter, Gauge, Registry } from 'prom-client';
import { registerConsensusRoutes, registerMetricsRoute, rfc3339 } from '../../src/rpc/consensus/index.js';
import { memoryLogger } from '../../src/log/logger.js';
import { filled, FixtureConsensusBackend, timeOf } from './fixtures/consensus-backend.js';
import { makeTransport, TRANSPORTS } from './fixtures/helpers.js';

for (const kind of TRANSPORTS) {
  t.test(`consensus routes on ${kind}`, async (t) => {
    const backend = new FixtureConsensusBackend();
    const transport = makeTransport(kind, {}, memoryLogger().logger);
    registerConsensusRoutes(transport, backend, { lagThreshold: 5 });
    let scrapes = 0;
    const registry = new Registry();
    new Gauge({ name: 'strata_block_height', help: 'Latest committed height.', registers: [registry], collect() { this.set(backend.latest); } });
    const requests = new Counter({ name: 'strata_rpc_requests_total', help: 'RPC requests.', labelNames: ['method'], registers: [registry] });
    requests.inc({ method: 'say "hi"' }, 0);
    registerMetricsRoute(transport, async () => {
      requests.inc({ method: 'eth_call' });
      scrapes++;
      return { body: await registry.metrics(), contentType: registry.contentType };
    });
    const port = await transport.listen('127.0.0.1', 0);
    t.teardown(() => transport.close());
    const get = async (path: string) => {
      const response = await fetch(`http://127.0.0.1:${port}${path}`);
      return { status: response.status, type: response.headers.get('content-type'), json: (await response.json()) as Record<string, unknown> };
    };

    t.test('/health and /status', async (t) => {
      t.same((await get('/health')).json, { jsonrpc: '2.0', id: -1, result: {} });
      const status = await get('/status');
      t.equal(status.status, 200);
      const result = status.json['result'] as Record<string, Record<string, unknown>>;
      t.same(result['sync_info'], {
        latest_block_hash: '0A'.repeat(32),
        latest_app_hash: 'AA'.repeat(32),
        latest_block_height: '10',
        latest_block_time: '2024-01-01T00:00:10.25Z',
        earliest_block_hash: '03'.repeat(32),
        earliest_app_hash: 'A3'.repeat(32),
        earliest_block_height: '3',
        earliest_block_time: '2024-01-01T00:00:03.25Z',
        catching_up: true,
      });
      t.equal(result['node_info']!['network'], 'strata-local-1');
      t.equal(result['node_info']!['id'], 'aa'.repeat(20));
      t.same(result['validator_info'], {
        address: '11'.repeat(20),
        pub_key: { type: 'tendermint/PubKeyEd25519', value: Buffer.from(filled(0x22)).toString('base64') },
        voting_power: '10',
      });
    });

    t.test('/net_info lists peers with n_peers as a string', async (t) => {
      const result = (await get('/net_info')).json['result'] as Record<string, unknown>;
      t.equal(result['n_peers'], '1');
      const peers = result['peers'] as Record<string, Record<string, unknown>>[];
      t.equal(peers.length, 1);
      t.equal(peers[0]!['node_info']!['moniker'], 'node-b');
      t.equal(peers[0]!['remote_ip'], '127.0.0.1');
    });

    t.test('/lag_status: strings; 200 within the threshold, 417 past it', async (t) => {
      backend.peerHeight = 15;
      const within = await get('/lag_status');
      t.equal(within.status, 200, 'lag 5 equals the threshold');
      t.same(within.json, { jsonrpc: '2.0', id: -1, result: { current_height: '10', max_peer_height: '15', lag: '5' } });
      backend.peerHeight = 16;
      const behind = await get('/lag_status');
      t.equal(behind.status, 417);
      t.same(behind.json['result'], { current_height: '10', max_peer_height: '16', lag: '6' });
      backend.withPeer = false;
      t.same((await get('/lag_status')).json['result'], { current_height: '10', max_peer_height: '0', lag: '0' });
      backend.withPeer = true;
      backend.peerHeight = 12;
    });

    t.test('/block and /commit by height, latest by default, and the height errors', async (t) => {
      const block = (await get('/block?height=4')).json['result'] as Record<string, Record<string, Record<string, unknown>>>;
      t.equal(block['block_id']!['hash'], '04'.repeat(32));
      t.equal(block['block']!['header']!['height'], '4');
      t.equal(block['block']!['header']!['time'], rfc3339(timeOf(4)));
      t.equal(block['block']!['header']!['app_hash'], 'A3'.repeat(32), 'the header carries the app hash after the previous block');
      t.same(block['block']!['data'], { txs: ['AQID'] });
      const quoted = (await get('/block?height="5"')).json['result'] as Record<string, Record<string, string>>;
      t.equal(quoted['block_id']!['hash'], '05'.repeat(32));
      const latest = (await get('/block')).json['result'] as Record<string, Record<string, Record<string, unknown>>>;
      t.equal(latest['block']!['header']!['height'], '10');
      const future = await get('/block?height=11');
      t.equal(future.status, 500);
      t.same(future.json, {
        jsonrpc: '2.0',
        id: -1,
        error: { code: -32603, message: 'Internal error', data: 'height 11 must be less than or equal to the current blockchain height 10' },
      });
      t.same((await get('/commit?height=2')).json['error'], { code: -32603, message: 'Internal error', data: 'height 2 is not available, lowest height is 3' });
      t.equal(((await get('/block?height=abc')).json['error'] as Record<string, unknown>)['code'], -32602);
      const commit = (await get('/commit?height=6')).json['result'] as Record<string, Record<string, Record<string, unknown>>>;
      t.equal(commit['canonical'] as unknown, true);
      const signatures = commit['signed_header']!['commit']!['signatures'] as Record<string, unknown>[];
      t.equal(signatures[0]!['validator_address'], '11'.repeat(20));
      t.equal(signatures[0]!['signature'], Buffer.from(filled(0x5a, 64)).toString('base64'));
      t.equal(commit['signed_header']!['commit']!['height'], '6');
    });

    t.test('/metrics serves Prometheus text', async (t) => {
      const response = await fetch(`http://127.0.0.1:${port}/metrics`);
      t.match(response.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
      const text = await response.text();
      t.equal(
        text,
        [
          '# HELP strata_block_height Latest committed height.',
          '# TYPE strata_block_height gauge',
          'strata_block_height 10',
          '',
          '# HELP strata_rpc_requests_total RPC requests.',
          '# TYPE strata_rpc_requests_total counter',
          'strata_rpc_requests_total{method="say \\"hi\\""} 0',
          `strata_rpc_requests_total{method="eth_call"} ${scrapes}`,
          '',
        ].join('\n'),
      );
    });
  });
}
