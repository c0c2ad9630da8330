/** Two peer hosts on 127.0.0.1: identity, the persistent-peer id check, bounded framing and dropping a misbehaving peer. */
import t from 'tap';
import { createLibp2p } from 'libp2p';
import { tcp } from '@libp2p/tcp';
import { noise } from '@chainsafe/libp2p-noise';
import { yamux } from '@chainsafe/libp2p-yamux';
import { generateKeyPairFromSeed } from '@libp2p/crypto/keys';
import * as lp from 'it-length-prefixed';
import { nodeKey } from '../../src/chain/keys.js';
import { memoryLogger } from '../../src/log/logger.js';
import { PeerHost, libp2pKeyOf, tcpMultiaddr, type Peer } from '../../src/p2p/index.js';

const LIMIT = 4096;

async function waitFor(what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function startHost(t: { teardown: (f: () => unknown) => void }, seed: Uint8Array, peers: Array<{ nodeId: string; port: number }> = [], extra: { maxInboundPeers?: number } = {}) {
  const { logger, records } = memoryLogger('debug');
  const host = await PeerHost.start({
    seed,
    listen: { host: '127.0.0.1', port: 0 },
    persistentPeers: peers.map((p) => ({ nodeId: p.nodeId, host: '127.0.0.1', port: p.port })),
    maxMessageBytes: LIMIT,
    redialMinMs: 50,
    redialMaxMs: 200,
    noPeersWarnMs: 300,
    logger,
    ...extra,
  });
  t.teardown(() => host.stop());
  return { host, records };
}

t.test('a host dials its persistent peer, both see each other under their CometBFT ids, and requests round-trip', async (t) => {
  const a = nodeKey();
  const b = nodeKey();
  const { host: hostA } = await startHost(t, a.seed);
  t.equal(hostA.nodeId, a.id, 'the libp2p key is the node key');
  await hostA.handle('/strata/echo/1', (message) => ({ echoed: message }));
  const { host: hostB } = await startHost(t, b.seed, [{ nodeId: a.id, port: hostA.port }]);
  await waitFor('both sides connected', () => hostA.peers().length === 1 && hostB.peers().length === 1);
  const [seenByA] = hostA.peers() as [Peer];
  const [seenByB] = hostB.peers() as [Peer];
  t.equal(seenByA.nodeId, b.id);
  t.equal(seenByA.direction, 'inbound');
  t.equal(seenByB.nodeId, a.id);
  t.equal(seenByB.direction, 'outbound');
  t.equal(seenByB.address, `127.0.0.1:${hostA.port}`);
  const reply = await hostB.request(seenByB, '/strata/echo/1', { n: 7, bytes: Buffer.from('abc') }, { timeoutMs: 5000, expectReply: true });
  t.same(reply, { echoed: { n: 7, bytes: Buffer.from('abc') } });
  await t.rejects(
    hostB.request(seenByB, '/strata/echo/1', { big: Buffer.alloc(LIMIT) }, { timeoutMs: 5000, expectReply: true }),
    { name: 'MessageEncodeError' },
    'a message over the limit is never sent',
  );
});

t.test('a peer whose key does not hash to the listed id is refused with both ids', async (t) => {
  const real = nodeKey();
  const listed = nodeKey();
  const { host: server } = await startHost(t, real.seed);
  const { host: client, records } = await startHost(t, nodeKey().seed, [{ nodeId: listed.id, port: server.port }]);
  await waitFor('the mismatch logged', () => records.some((r) => r.msg.includes('expected peer id mismatch')));
  const line = records.find((r) => r.msg.includes('expected peer id mismatch'))!;
  t.match(line.msg, listed.id);
  t.match(line.msg, real.id);
  t.equal(line.level, 'error');
  await new Promise((r) => setTimeout(r, 300));
  t.equal(client.peers().length, 0, 'the impostor is not a peer');
  await waitFor('No peers available', () => records.some((r) => r.msg === 'No peers available'));
});

t.test('a refused dial logs the connection-refused text and is retried', async (t) => {
  const { host: probe } = await startHost(t, nodeKey().seed);
  const port = probe.port;
  await probe.stop();
  const target = nodeKey();
  const { host: client, records } = await startHost(t, nodeKey().seed, [{ nodeId: target.id, port }]);
  await waitFor('connection refused logged twice', () => records.filter((r) => r.msg === `dial tcp 127.0.0.1:${port}: connect: connection refused`).length >= 2);
  // The peer comes up on that port later: the backoff finds it.
  const { host: late } = await (async () => {
    const { logger } = memoryLogger('warn');
    const host = await PeerHost.start({ seed: target.seed, listen: { host: '127.0.0.1', port }, persistentPeers: [], maxMessageBytes: LIMIT, logger });
    t.teardown(() => host.stop());
    return { host };
  })();
  await waitFor('connected after the peer came up', () => client.peers().length === 1 && late.peers().length === 1);
  t.pass();
});

t.test('garbage and oversized messages drop that peer; the host keeps serving others', async (t) => {
  const { host: server, records } = await startHost(t, nodeKey().seed);
  let served = 0;
  await server.handle('/strata/echo/1', (message) => {
    served++;
    return message;
  });
  const rogue = await createLibp2p({
    privateKey: libp2pKeyOf(nodeKey().seed),
    transports: [tcp()],
    connectionEncrypters: [noise()],
    streamMuxers: [yamux()],
    connectionMonitor: { enabled: false },
  });
  t.teardown(() => rogue.stop());
  const addr = tcpMultiaddr('127.0.0.1', server.port);

  // Not msgpack: 0xc1 is a byte msgpack never uses.
  let stream = await rogue.dialProtocol(addr, '/strata/echo/1');
  stream.send(lp.encode.single(Uint8Array.of(0xc1, 0xc1, 0xc1)));
  await waitFor('garbage drops the peer', () => records.some((r) => r.msg === 'dropping peer' && String(r.labels.reason).includes('undecodable')));
  await waitFor('peer gone', () => server.peers().length === 0);

  // A length prefix larger than the limit is refused before the bytes arrive.
  stream = await rogue.dialProtocol(addr, '/strata/echo/1');
  stream.send(lp.encode.single(new Uint8Array(LIMIT + 1)));
  await waitFor('oversized drops the peer', () => records.some((r) => r.msg === 'dropping peer' && String(r.labels.reason).includes('max-packet-msg-payload-size')));
  await waitFor('peer gone', () => server.peers().length === 0);

  // A well-behaved peer is still served.
  const { host: good } = await startHost(t, nodeKey().seed, [{ nodeId: server.nodeId, port: server.port }]);
  await waitFor('good peer connected', () => good.peers().length === 1);
  const reply = await good.request(good.peers()[0]!, '/strata/echo/1', 'hi', { timeoutMs: 5000, expectReply: true });
  t.equal(reply, 'hi');
  t.equal(served, 1);
});

t.test('inbound peers beyond the cap are refused', async (t) => {
  const { host: server, records } = await startHost(t, nodeKey().seed, [], { maxInboundPeers: 1 });
  const { host: first } = await startHost(t, nodeKey().seed, [{ nodeId: server.nodeId, port: server.port }]);
  await waitFor('first connected', () => first.peers().length === 1 && server.peers().length === 1);
  await startHost(t, nodeKey().seed, [{ nodeId: server.nodeId, port: server.port }]);
  await waitFor('second refused', () => records.some((r) => r.msg.includes('inbound peer limit')));
  t.equal(server.peers().length, 1);
});

t.test('the key of node_key.json gives the same libp2p peer each time', async (t) => {
  const key = nodeKey();
  const one = libp2pKeyOf(key.seed);
  const two = libp2pKeyOf(key.seed);
  t.ok(one.publicKey.equals(two.publicKey));
  t.same(Buffer.from(one.publicKey.raw), key.publicKey);
});

t.test('the libp2p key is the one libp2p derives from the seed, and its signatures verify', async (t) => {
  const key = nodeKey();
  const ours = libp2pKeyOf(key.seed);
  const theirs = await generateKeyPairFromSeed('Ed25519', key.seed);
  t.same(Buffer.from(ours.raw), Buffer.from(theirs.raw));
  t.ok(ours.equals(theirs));
  const message = Buffer.from('strata peer identity');
  t.ok(await theirs.publicKey.verify(message, await ours.sign(message)));
});

t.test('a listed address that does not speak the peer protocol is a failed handshake', async (t) => {
  const { createServer } = await import('node:http');
  const server = createServer((_request, response) => response.end('not a peer'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const port = (server.address() as { port: number }).port;
  const listed = nodeKey().id;
  const { host, records } = await startHost(t, nodeKey().seed, [{ nodeId: listed, port }]);
  await waitFor('handshake failed logged', () => records.some((r) => r.msg.startsWith(`handshake failed with ${listed}@127.0.0.1:${port}`)));
  t.equal(host.peers().length, 0);
});
