// Peer URLs (an owner node read from Redis, a 307 to it) go through the outbound URL guard: a node that is not this
// process or a listed peer is never contacted when private targets are refused (docs/deployment.md, "Peer URLs").
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { ManualClock } from '../../clock/index.ts';
import { createLogger } from '../../log/index.ts';
import { OutboundUrlError, type OutboundPolicy } from '../../net/index.ts';
import { waitUntil } from '../../testing/wait.ts';
import { postOffer } from '../client/whip-http.ts';
import { followChannel } from './follower.ts';

interface Node {
  readonly origin: string;
  readonly requests: { method: string; url: string; authorization: string | undefined }[];
  close(): Promise<void>;
}

async function node(host: string, handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<Node> {
  const requests: Node['requests'] = [];
  const server: Server = createServer((req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization });
    req.resume();
    req.on('end', () => handle(req, res));
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  const origin = `http://${host}:${(server.address() as { port: number }).port}`;
  return {
    origin,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

const quiet = createLogger('silent', new Writable({ write: (_c, _e, cb) => cb() }));

test('a WHEP POST redirected to a node that is not a listed peer is refused before it is sent there', async () => {
  // Two loopback addresses stand for two nodes; the owner answers like a channel node (201 + Location).
  const owner = await node('127.0.0.2', (_req, res) => res.writeHead(201, { location: '/rtc/v1/sessions/s1', 'content-type': 'application/sdp' }).end('v=0\r\n'));
  const entry = await node('127.0.0.1', (req, res) => res.writeHead(307, { location: `${owner.origin}${req.url}` }).end());
  try {
    const path = '/rtc/v1/apps/app/channels/c/whep?uid=1';
    const onlyEntry: OutboundPolicy = { allowPrivate: false, allow: [entry.origin] };
    await assert.rejects(postOffer(`${entry.origin}${path}`, 'offer', 'tok', onlyEntry), (e) => e instanceof OutboundUrlError && e.refusal === 'blocked_address');
    assert.equal(owner.requests.length, 0, 'the unlisted node got nothing, token included');

    const peers: OutboundPolicy = { allowPrivate: false, allow: [entry.origin, '127.0.0.2/32'] };
    const ok = await postOffer(`${entry.origin}${path}`, 'offer', 'tok', peers);
    assert.equal(ok.location, `${owner.origin}/rtc/v1/sessions/s1`);
    assert.deepEqual(owner.requests, [{ method: 'POST', url: path, authorization: 'Bearer tok' }]);
  } finally {
    await entry.close();
    await owner.close();
  }
});

test('a followed channel is read from its owner only when the owner is allowed by the peer rule', async () => {
  const snapshot = { profile: 'communication', participants: [{ uid: 7, role: 'publisher', joinedAt: 1, tracks: [], subscribedTo: [] }] };
  const owner = await node('127.0.0.2', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`event: snapshot\ndata: ${JSON.stringify(snapshot)}\n\n`);
  });
  const clock = new ManualClock();
  let policy: OutboundPolicy = { allowPrivate: false, allow: ['http://127.0.0.1:1'] };
  const follower = followChannel({
    appId: 'app',
    cname: 'c',
    owner: async () => owner.origin,
    authorization: 'Basic secret',
    pollMs: 1000,
    policy: () => policy,
    clock,
    log: quiet,
  });
  try {
    for (let i = 0; i < 3; i++) {
      await new Promise((r) => setTimeout(r, 50));
      clock.advance(1000);
    }
    assert.equal(owner.requests.length, 0, 'an owner URL from the directory that is no peer is never fetched');
    assert.equal(follower.snapshot().participants.length, 0);

    policy = { allowPrivate: false, allow: [owner.origin] };
    await waitUntil(() => follower.snapshot().participants.length > 0, {
      beforeCheck: () => clock.advance(1000),
      intervalMs: 50,
      what: "the owner's participants through the follower",
    });
    assert.deepEqual(follower.snapshot().participants.map((p) => p.uid), [7]);
    assert.equal(owner.requests[0]?.authorization, 'Basic secret');
  } finally {
    follower.close();
    await owner.close();
  }
});
