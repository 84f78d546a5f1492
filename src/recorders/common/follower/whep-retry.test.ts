import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { test } from 'node:test';
import { whepSubscribe, type MediaKind } from '../../../channel/index.ts';
import { ManualClock } from '../../../clock/index.ts';
import { createLogger } from '../../../log/index.ts';
import type { RtpTrackDescription } from '../../../media/index.ts';
import { ChannelRefusal } from './media-subscription.ts';
import { isNetworkError, supervisedWhep, WHEP_CONNECT_BOUND_MS, WHEP_RETRY_BACKOFF_MS, type LinkState, type WhepLink } from './whep-retry.ts';
import { settle, waitUntil } from '../../../testing/wait.ts';

const OPUS: RtpTrackDescription = { codec: 'opus', payloadType: 111, clockRate: 48000, channels: 2 };

/** A WHEP session whose peer state and packets the test drives by hand. */
class FakeLink implements WhepLink {
  closed = false;
  #state: ((s: LinkState | 'connecting') => void) | undefined;
  #packet: ((kind: MediaKind, track: RtpTrackDescription, packet: Buffer) => void) | undefined;
  onPacket(cb: (kind: MediaKind, track: RtpTrackDescription, packet: Buffer) => void): void {
    this.#packet = cb;
  }
  onSenderReport(): void {}
  requestKeyframe(): void {}
  onState(cb: (s: LinkState | 'connecting') => void): void {
    this.#state = cb;
    cb('connecting');
  }
  async close(): Promise<void> {
    this.closed = true;
  }
  set(s: LinkState): void {
    this.#state?.(s);
  }
  push(n: number): void {
    this.#packet?.('audio', OPUS, Buffer.from([n]));
  }
}

function harness() {
  const clock = new ManualClock();
  const lines: Record<string, unknown>[] = [];
  const log = createLogger('warn', { write: (l: string) => void lines.push(JSON.parse(l) as Record<string, unknown>) });
  const links: FakeLink[] = [];
  const errors: Error[] = [];
  const open = async (): Promise<WhepLink> => {
    const e = errors.shift();
    if (e) throw e;
    const l = new FakeLink();
    links.push(l);
    return l;
  };
  return { clock, lines, log, links, errors, open };
}

/** Lets the promise callbacks of an attempt run (no wall-clock wait). */

test('WHEP supervision: a peer not connected within the bound is closed and replaced with back-off; packets from the current link only', async () => {
  const h = harness();
  const sub = await supervisedWhep({ clock: h.clock, log: h.log, publisher: 301, kinds: ['audio', 'video'], open: h.open });
  const got: number[] = [];
  sub.onPacket((_k, _t, p) => got.push(p[0]!));

  h.clock.advance(WHEP_CONNECT_BOUND_MS - 1);
  assert.equal(h.links.length, 1, 'no replacement before the bound');
  h.clock.advance(1);
  assert.equal(h.links[0]!.closed, true, 'the stuck session is closed (DELETE)');
  assert.equal(h.links.length, 1, 'the replacement waits for its back-off');
  h.clock.advance(WHEP_RETRY_BACKOFF_MS[0]!);
  await settle(1);
  assert.equal(h.links.length, 2);
  h.links[0]!.push(1); // late packet of the closed session
  h.links[1]!.push(2);
  assert.deepEqual(got, [2]);

  // The second one never connects either, and one attempt fails outright: the back-off grows.
  h.errors.push(new Error('fetch failed'));
  h.clock.advance(WHEP_CONNECT_BOUND_MS + WHEP_RETRY_BACKOFF_MS[1]!);
  await settle(1);
  assert.equal(h.links.length, 2, 'the failed attempt made no link');
  h.clock.advance(WHEP_RETRY_BACKOFF_MS[2]! - 1);
  await settle(1);
  assert.equal(h.links.length, 2);
  h.clock.advance(1);
  await settle(1);
  assert.equal(h.links.length, 3);
  h.links[2]!.set('connected');
  h.clock.advance(10 * WHEP_CONNECT_BOUND_MS);
  assert.equal(h.links.length, 3, 'a connected session is kept');
  assert.equal(h.links[2]!.closed, false);

  const warned = h.lines.filter((l) => l.msg === 'WHEP subscription not connected: re-subscribing');
  assert.equal(warned.length, 3);
  for (const w of warned) {
    assert.equal(w.publisher, 301);
    assert.equal(w.kinds, 'audio+video');
  }
  await sub.close();
  assert.equal(h.links[2]!.closed, true);
  assert.equal(h.clock.pendingCount, 0, 'no timer left after close');
});

test('WHEP supervision: a failure or a long disconnection later is replaced; a refusal or close ends the retries', async () => {
  const h = harness();
  const sub = await supervisedWhep({ clock: h.clock, log: h.log, publisher: 7, kinds: ['video'], open: h.open });
  h.links[0]!.set('connected');
  h.links[0]!.set('failed');
  h.clock.advance(WHEP_RETRY_BACKOFF_MS[0]!);
  await settle(1);
  assert.equal(h.links.length, 2);
  h.links[1]!.set('connected');

  // A short disconnection recovers on its own; a long one is replaced, back-off starting over after a connection.
  h.links[1]!.set('disconnected');
  h.clock.advance(WHEP_CONNECT_BOUND_MS - 1);
  h.links[1]!.set('connected');
  h.clock.advance(WHEP_CONNECT_BOUND_MS);
  assert.equal(h.links[1]!.closed, false);
  h.links[1]!.set('disconnected');
  h.clock.advance(WHEP_CONNECT_BOUND_MS + WHEP_RETRY_BACKOFF_MS[0]!);
  await settle(1);
  assert.equal(h.links.length, 3);

  // The publisher has left: the channel refuses the next attempt and the retries stop.
  h.errors.push(new ChannelRefusal(404, 'publisher_not_found', 'gone'));
  h.links[2]!.set('failed');
  h.clock.advance(WHEP_RETRY_BACKOFF_MS[1]!); // the third session never connected: second step of the back-off
  await settle(1);
  assert.equal(h.clock.pendingCount, 0);
  assert.ok(h.lines.some((l) => l.msg === 'WHEP re-subscription refused: giving up on this link' && l.publisher === 7));

  // Closing while an attempt is pending: nothing is opened afterwards.
  const h2 = harness();
  const sub2 = await supervisedWhep({ clock: h2.clock, log: h2.log, publisher: 8, kinds: ['audio'], open: h2.open });
  h2.clock.advance(WHEP_CONNECT_BOUND_MS);
  await sub2.close();
  h2.clock.advance(60_000);
  await settle(1);
  assert.equal(h2.links.length, 1);
  assert.equal(h2.links[0]!.closed, true);
  await sub.close();
});

test('WHEP supervision: a first POST refused or reset at the network level is retried with back-off; an HTTP refusal is not', async () => {
  // Real sockets: a port nobody listens on (connection refused), a server that drops the connection (reset), and
  // one that answers 404 (the channel's refusal, the caller's to handle).
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const refusedPort = (closed.address() as AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));
  const resetting = createNetServer((socket) => socket.destroy());
  await new Promise<void>((r) => resetting.listen(0, '127.0.0.1', r));
  const refusing = createServer((_req, res) => res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"publisher_not_found","reason":"gone"}'));
  await new Promise<void>((r) => refusing.listen(0, '127.0.0.1', r));
  const post = (port: number) => whepSubscribe({ endpoint: `http://127.0.0.1:${port}/whep?uid=1&publisher=2`, kinds: ['audio'], keep: 0, policy: { allowPrivate: true } });
  try {
    const h = harness();
    const targets = [refusedPort, (resetting.address() as AddressInfo).port];
    const errors: unknown[] = [];
    const open = async (): Promise<WhepLink> => {
      const port = targets.shift();
      if (port !== undefined) {
        try {
          await post(port);
        } catch (e) {
          errors.push(e);
          throw e;
        }
        throw new Error('the POST was expected to fail');
      }
      return h.open();
    };
    const sub = await supervisedWhep({ clock: h.clock, log: h.log, publisher: 11, kinds: ['audio'], open });
    assert.ok(errors.length === 1 && isNetworkError(errors[0]), `refused: ${String(errors[0])}`);
    const got: number[] = [];
    sub.onPacket((_k, _t, p) => got.push(p[0]!));
    assert.equal(h.links.length, 0, 'no link yet: the retry waits for its back-off');
    // Real sockets answer in wall time; the back-off runs on the injected clock.
    const step = async (ms: number) => {
      h.clock.advance(ms);
      await new Promise((r) => setTimeout(r, 200));
    };
    await step(WHEP_RETRY_BACKOFF_MS[0]! - 1);
    assert.equal(errors.length, 1);
    h.clock.advance(1);
    // The second attempt makes a peer and POSTs to the resetting server: its failure comes in real time (over 200 ms
    // under the whole suite's load, fresh-clone run of session 29).
    await waitUntil(() => errors.length === 2, { timeoutMs: 20_000, what: 'the second attempt to fail' });
    assert.ok(isNetworkError(errors[1]), `reset: ${String(errors[1])}`);
    h.clock.advance(WHEP_RETRY_BACKOFF_MS[1]!);
    await waitUntil(() => h.links.length === 1, { timeoutMs: 20_000, what: 'the third attempt to make a link' });
    // The supervisor takes the link up once its open() resolves.
    await settle();
    h.links[0]!.set('connected');
    h.links[0]!.push(5);
    assert.deepEqual(got, [5]);
    const warned = h.lines.filter((l) => l.msg === 'WHEP subscription not connected: re-subscribing');
    assert.equal(warned.length, 2);
    assert.match(String(warned[0]!.reason), /^subscribe failed: .*ECONNREFUSED/);
    await sub.close();
    assert.equal(h.clock.pendingCount, 0);

    // The channel answered (404): not retried, the caller sees it as before.
    const h2 = harness();
    const refused = (refusing.address() as AddressInfo).port;
    await assert.rejects(
      supervisedWhep({ clock: h2.clock, log: h2.log, publisher: 12, kinds: ['audio'], open: () => post(refused) as never }),
      (e: Error) => !isNetworkError(e) && /404/.test(e.message),
    );
    assert.equal(h2.clock.pendingCount, 0, 'no retry armed');
  } finally {
    await new Promise<void>((r) => resetting.close(() => r()));
    refusing.closeAllConnections();
    await new Promise<void>((r) => refusing.close(() => r()));
  }
});
