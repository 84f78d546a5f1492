import type { DtlsSocket, RTCDtlsTransport, RTCPeerConnection } from 'werift';

type Handshakes = Parameters<DtlsSocket['onHandleHandshakes']>[0];

const HELLO_VERIFY_REQUEST = 3;
const CLIENT_KEY_EXCHANGE = 16;
/** werift's DTLS client flight that answers a HelloVerifyRequest (ClientHello with the cookie). */
const FLIGHT_3 = 3;
/** The client's flight that carries its ClientKeyExchange, as werift's server files it in the handshake cache. */
const FLIGHT_5 = 5;
/** werift's `SessionType.SERVER`. */
const SERVER = 2;

const guarded = new WeakSet<RTCDtlsTransport>();

/**
 * Works around three werift DTLS handshake bugs (docs/channel.md, "werift workarounds"): the client failing on a
 * repeated HelloVerifyRequest, the server deriving the wrong keys from a retransmitted flight 5, and retransmitted
 * flights carrying the record sequence numbers of their first sending.
 * Call after the peer's transports exist (after setLocalDescription or setRemoteDescription) and before ICE
 * connects; the socket is wrapped when the transport creates it.
 */
export function guardDtlsHandshake(pc: RTCPeerConnection): void {
  for (const t of pc.dtlsTransports) guard(t);
}

function guard(t: RTCDtlsTransport): void {
  if (guarded.has(t)) return;
  guarded.add(t);
  let socket = t.dtls;
  Object.defineProperty(t, 'dtls', {
    configurable: true,
    enumerable: true,
    get: () => socket,
    set: (s: DtlsSocket | undefined) => {
      socket = s;
      if (s) wrapHandshakes(s);
    },
  });
}

function wrapHandshakes(s: DtlsSocket): void {
  freshSequenceOnResend(s);
  const handle = s.onHandleHandshakes;
  s.onHandleHandshakes = (assembled: Handshakes) => {
    const kept = dropRepeatedHelloVerify(s, assembled);
    return s.sessionType === SERVER ? hashUpToKeyExchange(s, kept, handle) : handle(kept);
  };
}

/**
 * werift's client fails the handshake on a second HelloVerifyRequest. One arrives whenever its ClientHello was
 * retransmitted (500 ms without an answer, e.g. a busy event loop) and the server answered both copies, as werift's
 * server does. RFC 6347 section 4.2.1 has the client go on; the client already retransmits its cookie ClientHello
 * on its own timer, so the repeat is dropped.
 */
function dropRepeatedHelloVerify(s: DtlsSocket, assembled: Handshakes): Handshakes {
  return assembled.filter((h) => !(h.msg_type === HELLO_VERIFY_REQUEST && s.dtls.flight >= FLIGHT_3));
}

/**
 * werift's server derives the extended master secret (RFC 7627) from every client flight-5 message it holds when a
 * ClientKeyExchange arrives, and does so again for each retransmitted copy. When the client retransmits flight 5
 * (its Finished was lost), the CertificateVerify of the first copy, which follows the ClientKeyExchange, is already
 * held and enters the hash: the keys differ from the client's, every Finished fails to decrypt and the peer never
 * connects. The session hash stops at the ClientKeyExchange, so the later messages are hidden while werift handles
 * it. werift computes the keys synchronously, before its handler's first await, so they are back in the cache at
 * once.
 */
function hashUpToKeyExchange(s: DtlsSocket, assembled: Handshakes, handle: (h: Handshakes) => Promise<void>): Promise<void> {
  const keyExchange = assembled.find((h) => h.msg_type === CLIENT_KEY_EXCHANGE);
  if (!keyExchange) return handle(assembled);
  // One record's handshakes come sorted by type, a CertificateVerify (15) before the ClientKeyExchange (16): hand
  // them over in the client's order.
  const inOrder = [...assembled].sort((a, b) => a.message_seq - b.message_seq);
  const cached = s.dtls.handshakeCache[FLIGHT_5];
  if (!cached) return handle(inOrder);
  const held = cached.data;
  cached.data = held.filter((h) => h.message_seq <= keyExchange.message_seq);
  try {
    return handle(inOrder);
  } finally {
    const added = cached.data.filter((h) => !held.some((o) => o.msg_type === h.msg_type));
    cached.data = [...held, ...added];
  }
}

const RECORD_HEADER = 13;
const HANDSHAKE = 22;
/** Epoch-0 records sent again get numbers from here up: above any werift gave, and epoch 0 ends with the handshake. */
const RESEND_SEQUENCE_BASE = 2 ** 40;

type DtlsRecord = Parameters<DtlsSocket['cipher']['encryptPacket']>[0];

/**
 * werift retransmits a flight by sending the same bytes again, record sequence numbers included. A peer with a
 * replay window (BoringSSL: Chromium) drops such records as replays. Chromium as the DTLS server (the node is the
 * client of every full-ICE peer) repeats its final flight only when it sees the client's Finished again, so when its
 * Finished was lost, the handshake never completed: through 10 % loss on its uplink, a third of Chromium publishers
 * never got their media through. RFC 6347 §4.1 gives every record sent its own sequence number, so a buffer sent a
 * second time goes out as a copy with new numbers: epoch-0 records are renumbered, and an encrypted handshake record
 * (the Finished) is encrypted again under a new number from werift's own counter.
 */
function freshSequenceOnResend(s: DtlsSocket): void {
  const sent = new WeakSet<Buffer>();
  /** The handshake's encrypted records by their bytes, with what is needed to encrypt them again. */
  const encrypted = new Map<string, { readonly record: DtlsRecord; readonly plaintext: Buffer }>();
  const encrypt = s.cipher.encryptPacket.bind(s.cipher);
  s.cipher.encryptPacket = (record: DtlsRecord) => {
    if (s.connected || record.recordLayerHeader.contentType !== HANDSHAKE) return encrypt(record);
    const plaintext = Buffer.from(record.fragment);
    const out = encrypt(record);
    encrypted.set(out.serialize().toString('hex'), { record: out, plaintext });
    return out;
  };
  s.onConnect.subscribe(() => encrypted.clear());
  let resendSequence = RESEND_SEQUENCE_BASE;
  const reencrypt = (bytes: Buffer): Buffer | undefined => {
    const known = encrypted.get(bytes.toString('hex'));
    if (!known) return undefined;
    known.record.fragment = Buffer.from(known.plaintext);
    known.record.recordLayerHeader.sequenceNumber = ++s.dtls.recordSequenceNumber;
    const again = encrypt(known.record).serialize();
    encrypted.set(again.toString('hex'), known);
    return again;
  };
  const send = s.transport.send;
  Object.defineProperty(s.transport, 'send', {
    configurable: true,
    value: (buf: Buffer, addr?: Parameters<typeof send>[1]) => {
      if (!sent.has(buf)) {
        sent.add(buf);
        return send(buf, addr);
      }
      return send(renumberRecords(buf, () => resendSequence++, reencrypt), addr);
    },
  });
}

/**
 * A copy of `buf` (DTLS records back to back) for sending again: epoch-0 records numbered from `next`, others
 * replaced by what `reencrypt` gives for them (kept as they are when it gives nothing).
 */
function renumberRecords(buf: Buffer, next: () => number, reencrypt: (record: Buffer) => Buffer | undefined = () => undefined): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  while (at + RECORD_HEADER <= buf.length) {
    const end = Math.min(buf.length, at + RECORD_HEADER + buf.readUInt16BE(at + 11));
    const record = Buffer.from(buf.subarray(at, end));
    if (record.readUInt16BE(3) === 0) {
      record.writeUIntBE(next(), 5, 6);
      parts.push(record);
    } else parts.push(reencrypt(record) ?? record);
    at = end;
  }
  return Buffer.concat(parts);
}

const ALERT = 21;
/** An alert record's body: level warning (1), description close_notify (0) (RFC 5246 §7.2.1). */
const CLOSE_NOTIFY = Buffer.from([1, 0]);

/**
 * Sends close_notify on the peer's connected DTLS transports, which werift leaves out of its close ("todo impl send
 * alert"): without it the other side learns that the session is gone only when ICE consent fails, ~30 s later. werift
 * sends only application data, so that record is sent with its content type changed to alert just before it is
 * encrypted (the type is part of the record's authenticated data).
 */
export function sendCloseNotify(pc: RTCPeerConnection): Promise<void> {
  const sent: Promise<void>[] = [];
  for (const t of pc.dtlsTransports) {
    const s = t.dtls;
    if (!s?.connected || t.state !== 'connected') continue;
    const encrypt = s.cipher.encryptPacket;
    s.cipher.encryptPacket = (record: DtlsRecord) => {
      record.recordLayerHeader.contentType = ALERT;
      return encrypt.call(s.cipher, record);
    };
    try {
      // The record is built and encrypted before send's first await: the swap is undone before anything else runs.
      sent.push(s.send(CLOSE_NOTIFY).catch(() => undefined));
    } finally {
      s.cipher.encryptPacket = encrypt;
    }
  }
  // Resolves once the records have left: werift hands them to the socket, which sends after its address lookup
  // (the next tick, even for an address literal); a peer closed before that drops them.
  return Promise.all(sent).then(() => new Promise<void>((resolve) => setImmediate(resolve)));
}

/**
 * Calls `onClosed` once when the other side closes a DTLS transport of the peer (its close_notify, as
 * sendCloseNotify sends), which werift does not reflect in the connection state.
 */
export function onRemoteDtlsClose(pc: RTCPeerConnection, onClosed: () => void): void {
  let called = false;
  for (const t of pc.dtlsTransports) {
    t.onStateChange.subscribe((state) => {
      // close() marks the signalling state closed before it stops the transports: that close is ours.
      if (state !== 'closed' || called || pc.signalingState === 'closed') return;
      called = true;
      onClosed();
    });
  }
}
