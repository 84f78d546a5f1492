import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { guardedFetch, OutboundUrlError, resolveOutbound, type OutboundPolicy } from './index.ts';

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

async function receiver(handler: (seen: Seen, res: import('node:http').ServerResponse) => void, host = '127.0.0.1') {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const s = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() };
      seen.push(s);
      handler(s, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  const port = (server.address() as AddressInfo).port;
  return { seen, port, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const open: OutboundPolicy = { allowPrivate: true };

test('guardedFetch posts the exact body and returns a standard Response', async () => {
  const r = await receiver((s, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'x-echo': s.headers['x-k'] ?? '' });
    res.end(JSON.stringify({ got: s.body }));
  });
  try {
    const res = await guardedFetch(`http://127.0.0.1:${r.port}/hook?a=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-k': 'v' },
      body: '{"a":1}',
    }, open);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-echo'), 'v');
    assert.deepEqual(await res.json(), { got: '{"a":1}' });
    assert.equal(r.seen[0]?.url, '/hook?a=1');
    assert.equal(r.seen[0]?.headers['content-length'], '7');
  } finally {
    await r.close();
  }
});

test('guardedFetch refuses before connecting when the policy forbids the target', async () => {
  const r = await receiver((_s, res) => res.end('no'));
  try {
    await assert.rejects(guardedFetch(`http://127.0.0.1:${r.port}/`, {}, { allowPrivate: false }), OutboundUrlError);
    await assert.rejects(guardedFetch(`http://localhost:${r.port}/`, {}, { allowPrivate: false }), /resolves to/);
    assert.equal(r.seen.length, 0);
  } finally {
    await r.close();
  }
});

test('the host is resolved once and the connection goes to that address (no DNS rebinding)', async () => {
  const r = await receiver((s, res) => res.end(s.headers.host));
  try {
    let calls = 0;
    const rebinding: OutboundPolicy = {
      allowPrivate: true,
      resolve: async () => (calls++ === 0 ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '10.255.255.1', family: 4 }]),
    };
    const res = await guardedFetch(`http://rebind.invalid:${r.port}/`, {}, rebinding);
    assert.equal(await res.text(), `rebind.invalid:${r.port}`, 'Host header keeps the name');
    assert.equal(calls, 1);
  } finally {
    await r.close();
  }
});

test('a name from the system resolver (localhost) connects to the address it resolved to', async () => {
  const { address } = await resolveOutbound('http://localhost/', open);
  const r = await receiver((s, res) => res.end(s.headers.host), address);
  try {
    const res = await guardedFetch(`http://localhost:${r.port}/`, {}, open);
    assert.equal(await res.text(), `localhost:${r.port}`);
  } finally {
    await r.close();
  }
});

test('URL credentials become Basic auth; redirects are returned unless asked for, and every hop is checked', async () => {
  const r = await receiver((s, res) => {
    if (s.url === '/to-file') res.writeHead(302, { location: 'file:///etc/passwd' }).end();
    else if (s.url === '/to-ok') res.writeHead(301, { location: '/ok' }).end();
    else res.end(`auth=${s.headers.authorization ?? ''}`);
  });
  try {
    const base = `http://127.0.0.1:${r.port}`;
    const auth = await guardedFetch(`http://us%40er:p%3Ass@127.0.0.1:${r.port}/`, {}, open);
    assert.equal(await auth.text(), `auth=Basic ${Buffer.from('us@er:p:ss').toString('base64')}`);
    const manual = await guardedFetch(`${base}/to-ok`, {}, open);
    assert.equal(manual.status, 301);
    const followed = await guardedFetch(`${base}/to-ok`, { maxRedirects: 3 }, open);
    assert.equal(followed.status, 200);
    assert.equal(await followed.text(), 'auth=');
    await assert.rejects(guardedFetch(`${base}/to-file`, { maxRedirects: 3 }, open), /scheme "file" is not allowed/);
  } finally {
    await r.close();
  }
});

test('an abort signal ends a request the receiver never answers', async () => {
  const r = await receiver(() => {});
  try {
    const ac = new AbortController();
    const p = guardedFetch(`http://127.0.0.1:${r.port}/`, { method: 'POST', body: 'x', signal: ac.signal }, open);
    const deadline = Date.now() + 10_000;
    while (r.seen.length === 0 && Date.now() < deadline) await new Promise((res) => setTimeout(res, 10));
    ac.abort();
    await assert.rejects(p, /abort/i);
  } finally {
    await r.close();
  }
});
