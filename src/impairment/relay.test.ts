import assert from 'node:assert/strict';
import { createSocket, type Socket } from 'node:dgram';
import { test } from 'node:test';
import { waitUntil } from '../testing/index.ts';
import { startImpairmentRelay } from './index.ts';

async function udpOn(handler: (s: Socket, data: Buffer, port: number, address: string) => void): Promise<Socket> {
  const s = createSocket('udp4');
  s.on('message', (data, r) => handler(s, data, r.port, r.address));
  await new Promise<void>((resolve) => s.bind({ address: '127.0.0.1', port: 0 }, resolve));
  return s;
}

test('relay: datagrams reach the target through the listen port, answers come back; 20 % upstream loss is counted', async () => {
  // The target echoes; the peer counts echoes.
  const target = await udpOn((s, data, port, address) => s.send(data, port, address));
  const echoes: number[] = [];
  const peer = await udpOn((_s, data) => echoes.push(data.readUInt32BE(0)));
  const relay = await startImpairmentRelay({
    mappings: [{ listen: { address: '127.0.0.1', port: 0 }, target: { address: '127.0.0.1', port: target.address().port } }],
    upstream: { loss: 0.2 },
    downstream: { delayMs: 5 },
    seed: 11,
  });
  try {
    const { port } = relay.endpoints[0]!;
    assert.ok(port > 0);
    const up = relay.counters.upstream;
    const down = relay.counters.downstream;
    // In batches of 50: 500 at once would overflow the relay socket's receive buffer (the kernel, not the model, drops).
    for (let i = 0; i < 500; i++) {
      const b = Buffer.alloc(64);
      b.writeUInt32BE(i, 0);
      peer.send(b, port, '127.0.0.1');
      if (i % 50 === 49) await waitUntil(() => up.packetsIn === i + 1, { what: `datagram ${i} at the relay` });
    }
    await waitUntil(() => up.packetsIn === 500 && down.packetsOut === up.packetsOut && echoes.length === down.packetsOut, {
      what: () => `every datagram through (${JSON.stringify(relay.counters)}, ${echoes.length} echoes)`,
    });
    assert.equal(up.bytesIn, 500 * 64);
    assert.equal(up.dropped.random + up.packetsOut, 500);
    assert.ok(up.dropped.random > 60 && up.dropped.random < 140, `dropped ${up.dropped.random} of 500 at 20 %`);
    assert.equal(down.delayed, down.packetsOut, 'the way back is delayed');
    assert.equal(new Set(echoes).size, echoes.length, 'no duplicates without duplication');
  } finally {
    await relay.close();
    peer.close();
    target.close();
  }
});

test('relay: each peer source gets its own socket towards the target', async () => {
  const sources = new Set<number>();
  const target = await udpOn((_s, _d, port) => sources.add(port));
  const relay = await startImpairmentRelay({
    mappings: [{ listen: { address: '127.0.0.1', port: 0 }, target: { address: '127.0.0.1', port: target.address().port } }],
  });
  const a = await udpOn(() => undefined);
  const b = await udpOn(() => undefined);
  try {
    a.send('x', relay.endpoints[0]!.port, '127.0.0.1');
    b.send('y', relay.endpoints[0]!.port, '127.0.0.1');
    a.send('z', relay.endpoints[0]!.port, '127.0.0.1');
    await waitUntil(() => relay.counters.upstream.packetsOut === 3 && sources.size === 2, { what: 'two sources at the target' });
  } finally {
    await relay.close();
    a.close();
    b.close();
    target.close();
  }
});

test('relay: rebind (a change of network) gives a peer a new address at the target; answers to the old one are lost', async () => {
  const sources: number[] = [];
  const target = await udpOn((_s, _d, port) => sources.push(port));
  const relay = await startImpairmentRelay({
    mappings: [{ listen: { address: '127.0.0.1', port: 0 }, target: { address: '127.0.0.1', port: target.address().port } }],
  });
  const answers: string[] = [];
  const peer = await udpOn((_s, data) => answers.push(data.toString()));
  try {
    const { port } = relay.endpoints[0]!;
    peer.send('before', port, '127.0.0.1');
    await waitUntil(() => sources.length === 1, { what: 'the first datagram at the target' });
    await relay.rebind();
    // The target answers the address it knew: nobody is there any more.
    target.send('to the old address', sources[0]!, '127.0.0.1');
    peer.send('after', port, '127.0.0.1');
    await waitUntil(() => sources.length === 2, { what: 'the datagram after the rebind at the target' });
    assert.notEqual(sources[1], sources[0], 'a new source port after the rebind');
    target.send('to the new address', sources[1]!, '127.0.0.1');
    await waitUntil(() => answers.includes('to the new address'), { what: 'the answer to the new address' });
    assert.deepEqual(answers, ['to the new address']);
  } finally {
    await relay.close();
    peer.close();
    target.close();
  }
});

test('relay: dropPeers (the old network gone) drops the peers seen so far both ways; a new peer socket gets through', async () => {
  const got: string[] = [];
  const target = await udpOn((s, data, port, address) => {
    got.push(data.toString());
    s.send(`echo ${data.toString()}`, port, address);
  });
  const relay = await startImpairmentRelay({
    mappings: [{ listen: { address: '127.0.0.1', port: 0 }, target: { address: '127.0.0.1', port: target.address().port } }],
  });
  const oldAnswers: string[] = [];
  const newAnswers: string[] = [];
  const old = await udpOn((_s, data) => oldAnswers.push(data.toString()));
  const fresh = await udpOn((_s, data) => newAnswers.push(data.toString()));
  try {
    const { port } = relay.endpoints[0]!;
    old.send('a', port, '127.0.0.1');
    await waitUntil(() => oldAnswers.length === 1, { what: 'the echo before the drop' });
    relay.dropPeers();
    old.send('b', port, '127.0.0.1');
    fresh.send('c', port, '127.0.0.1');
    await waitUntil(() => newAnswers.length === 1, { what: 'the new socket’s echo' });
    await waitUntil(() => relay.counters.upstream.dropped.random === 1, { what: 'the old peer’s datagram dropped' });
    assert.deepEqual(got, ['a', 'c']);
    assert.deepEqual(oldAnswers, ['echo a']);
  } finally {
    await relay.close();
    old.close();
    fresh.close();
    target.close();
  }
});

test('relay: one peer’s own link (its downlink cut) leaves the other peers on the shared, clean one', async () => {
  const target = await udpOn((s, data, port, address) => s.send(data, port, address));
  const echoes = { a: 0, b: 0 };
  const a = await udpOn(() => echoes.a++);
  const b = await udpOn(() => echoes.b++);
  const relay = await startImpairmentRelay({
    mappings: [{ listen: { address: '127.0.0.1', port: 0 }, target: { address: '127.0.0.1', port: target.address().port } }],
  });
  try {
    const { port } = relay.endpoints[0]!;
    a.send('first', port, '127.0.0.1');
    b.send('first', port, '127.0.0.1');
    await waitUntil(() => echoes.a === 1 && echoes.b === 1, { what: 'both echoed once' });
    assert.deepEqual(relay.peers(), [`127.0.0.1|${a.address().port}`, `127.0.0.1|${b.address().port}`]);
    relay.setPeerLink(`127.0.0.1|${b.address().port}`, 'downstream', { loss: 1 });
    for (let i = 0; i < 20; i++) {
      a.send('x', port, '127.0.0.1');
      b.send('x', port, '127.0.0.1');
    }
    await waitUntil(() => echoes.a === 21 && relay.counters.downstream.dropped.random === 20, {
      what: () => `a's echoes through, b's dropped (${JSON.stringify(echoes)}, ${JSON.stringify(relay.counters.downstream)})`,
    });
    assert.equal(echoes.b, 1);
  } finally {
    await relay.close();
    a.close();
    b.close();
    target.close();
  }
});
