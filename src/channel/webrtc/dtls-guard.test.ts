import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DtlsClient, DtlsServer, type DtlsSocket, type RTCPeerConnection } from 'werift';
import { loopbackPeer } from '../client/peer.ts';
import { guardDtlsHandshake } from './dtls-guard.ts';
import { gatheringComplete } from './ice-gathering.ts';

/**
 * Blocks the event loop right after the DTLS client sends its first ClientHello, for longer than its 500 ms
 * retransmission timer: the client sends a second ClientHello before the server saw the first, and the server
 * answers both with a HelloVerifyRequest. This is what a loaded machine does by chance; here it always happens.
 */
function stallAfterFirstClientHello(peers: readonly RTCPeerConnection[]): void {
  onDtlsSocket(peers, (socket) => {
    if (!(socket instanceof DtlsClient)) return;
    const send = socket.transport.send;
    let first = true;
    Object.defineProperty(socket.transport, 'send', {
      value: (buf: Buffer) => {
        const sent = send(buf);
        if (first) {
          first = false;
          setImmediate(() => {
            const until = Date.now() + 800;
            while (Date.now() < until) {
              // a busy event loop
            }
          });
        }
        return sent;
      },
    });
  });
}

/** Calls `wrap` with each DTLS socket of the peers once its transport creates it. */
function onDtlsSocket(peers: readonly RTCPeerConnection[], wrap: (socket: DtlsSocket) => void): void {
  for (const pc of peers) {
    for (const t of pc.dtlsTransports) {
      t.onStateChange.subscribe((state) => {
        if (state !== 'connecting') return;
        // The transport creates its DTLS socket right after announcing "connecting" and sends 100 ms later.
        queueMicrotask(() => {
          const socket = t.dtls;
          if (socket) wrap(socket);
        });
      });
    }
  }
}

const HANDSHAKE_RECORD = 22;

/**
 * Loses the DTLS client's first Finished (its only encrypted handshake record in flight 5; each record of a werift
 * flight is a datagram of its own): the server has the rest of flight 5 and gets all of it again when the client
 * retransmits. Calls `decryptFailed` when the server cannot decrypt a record, which is how the wrong keys show.
 */
function loseFirstFinished(peers: readonly RTCPeerConnection[], decryptFailed: () => void): void {
  onDtlsSocket(peers, (socket) => {
    if (socket instanceof DtlsServer) {
      const decrypt = socket.cipher.decryptPacket.bind(socket.cipher);
      socket.cipher.decryptPacket = (packet) => {
        try {
          return decrypt(packet);
        } catch (error) {
          decryptFailed();
          throw error;
        }
      };
      return;
    }
    const send = socket.transport.send;
    let lost = false;
    Object.defineProperty(socket.transport, 'send', {
      value: (buf: Buffer) => {
        const epoch = buf.length > 4 ? buf.readUInt16BE(3) : 0;
        if (!lost && buf[0] === HANDSHAKE_RECORD && epoch > 0) {
          lost = true;
          return Promise.resolve();
        }
        return send(buf);
      },
    });
  });
}

/**
 * Loses the DTLS server's first Finished, so the client sends its flight 5 again (and again) until one gets an
 * answer. Every handshake record the client's socket really sends is noted in `sent` as "epoch/sequence number".
 */
function loseServerFinished(peers: readonly RTCPeerConnection[], sent: string[]): void {
  onDtlsSocket(peers, (socket) => {
    if (socket instanceof DtlsServer) {
      const send = socket.transport.send;
      let lost = false;
      Object.defineProperty(socket.transport, 'send', {
        value: (buf: Buffer) => {
          if (!lost && buf[0] === HANDSHAKE_RECORD && buf.readUInt16BE(3) > 0) {
            lost = true;
            return Promise.resolve();
          }
          return send(buf);
        },
      });
      return;
    }
    const udp = socket.transport.socket;
    const send = udp.send.bind(udp);
    udp.send = (buf: Buffer, addr?: Parameters<typeof send>[1]) => {
      for (let at = 0; at + 13 <= buf.length; at += 13 + buf.readUInt16BE(at + 11)) {
        if (buf[at] === HANDSHAKE_RECORD) sent.push(`${buf.readUInt16BE(at + 3)}/${buf.readUIntBE(at + 5, 6)}`);
      }
      return send(buf, addr);
    };
  });
}

type Impairment = 'stall first ClientHello' | 'lose first Finished' | 'lose server Finished';

/** Connects two werift peers over loopback; resolves with the final states once both settle. */
async function handshake(guard: boolean, impair: Impairment, sent: string[] = []): Promise<string[]> {
  const offerer = await loopbackPeer();
  const answerer = await loopbackPeer();
  try {
    offerer.addTransceiver('video', { direction: 'sendonly' });
    await offerer.setLocalDescription(await offerer.createOffer());
    await gatheringComplete(offerer);
    await answerer.setRemoteDescription(offerer.localDescription!);
    await answerer.setLocalDescription(await answerer.createAnswer());
    await gatheringComplete(answerer);
    if (guard) for (const pc of [offerer, answerer]) guardDtlsHandshake(pc);
    let decryptFailed = () => {};
    if (impair === 'stall first ClientHello') stallAfterFirstClientHello([offerer, answerer]);
    else if (impair === 'lose first Finished') loseFirstFinished([offerer, answerer], () => decryptFailed());
    else loseServerFinished([offerer, answerer], sent);
    const settled = (pc: RTCPeerConnection) =>
      new Promise<string>((resolve) => {
        const check = () => {
          const s = pc.connectionState;
          const dtls = pc.dtlsTransports.map((t) => t.state);
          if (s === 'connected' || s === 'failed' || s === 'closed' || dtls.includes('failed')) resolve(dtls.includes('failed') ? 'failed' : s);
        };
        pc.connectionStateChange.subscribe(check);
        for (const t of pc.dtlsTransports) t.onStateChange.subscribe(check);
        check();
      });
    await offerer.setRemoteDescription(answerer.localDescription!);
    // The DTLS client either fails at once or both sides connect; the server side alone would wait forever.
    return await Promise.race([
      Promise.all([settled(offerer), settled(answerer)]),
      new Promise<string[]>((resolve) => {
        decryptFailed = () => resolve(['failed']);
        for (const pc of [offerer, answerer]) {
          for (const t of pc.dtlsTransports) t.onStateChange.subscribe((s) => s === 'failed' && resolve(['failed']));
        }
      }),
    ]);
  } finally {
    await offerer.close().catch(() => undefined);
    await answerer.close().catch(() => undefined);
  }
}

test('DTLS: a repeated HelloVerifyRequest (retransmitted ClientHello under load) no longer fails the handshake', async () => {
  // Control: werift alone fails this handshake. If this starts to pass, werift fixed it and the guard can go.
  assert.deepEqual(await handshake(false, 'stall first ClientHello'), ['failed'], 'the stall reproduces the repeated HelloVerifyRequest');
  assert.deepEqual(await handshake(true, 'stall first ClientHello'), ['connected', 'connected']);
});

test('DTLS: a retransmitted flight 5 (the client’s Finished was lost) gives the server the client’s keys', async () => {
  // Control: werift's server alone derives other keys and cannot decrypt the retransmitted Finished.
  assert.deepEqual(await handshake(false, 'lose first Finished'), ['failed'], 'the lost Finished reproduces the wrong keys');
  assert.deepEqual(await handshake(true, 'lose first Finished'), ['connected', 'connected']);
});

test('DTLS: a flight sent again carries new record sequence numbers (a peer with a replay window, as Chromium, drops repeats)', async () => {
  // Control: werift alone sends its retransmitted flight 5 with the same numbers (werift's server has no replay
  // window, so it connects anyway; BoringSSL drops the repeats and never answers them).
  const plain: string[] = [];
  assert.deepEqual(await handshake(false, 'lose server Finished', plain), ['connected', 'connected']);
  assert.ok(plain.length > new Set(plain).size, `werift repeats its records' numbers: ${plain.join(' ')}`);
  const guarded: string[] = [];
  assert.deepEqual(await handshake(true, 'lose server Finished', guarded), ['connected', 'connected'], 'the re-encrypted Finished decrypts');
  assert.equal(guarded.length, new Set(guarded).size, `every handshake record sent has its own number: ${guarded.join(' ')}`);
  assert.ok(guarded.filter((r) => !r.startsWith('0/')).length >= 2, `the Finished was sent again, encrypted again: ${guarded.join(' ')}`);
});
