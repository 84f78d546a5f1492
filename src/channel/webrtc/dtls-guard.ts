import type { DtlsSocket, RTCDtlsTransport, RTCPeerConnection } from 'werift';

type Handshakes = Parameters<DtlsSocket['onHandleHandshakes']>[0];

const HELLO_VERIFY_REQUEST = 3;
/** werift's DTLS client flight that answers a HelloVerifyRequest (ClientHello with the cookie). */
const FLIGHT_3 = 3;

const guarded = new WeakSet<RTCDtlsTransport>();

/**
 * werift's DTLS client fails the handshake on a second HelloVerifyRequest. One arrives whenever its ClientHello
 * was retransmitted (500 ms without an answer, e.g. a busy event loop) and the server answered both copies, as
 * werift's server does. RFC 6347 section 4.2.1 has the client go on; here the repeat is dropped, since the client
 * already retransmits its cookie ClientHello on its own timer (docs/channel.md, "werift workarounds").
 * Call after the peer's transports exist (after setLocalDescription or setRemoteDescription) and before ICE
 * connects; the socket is wrapped when the transport creates it.
 */
export function tolerateRepeatedHelloVerify(pc: RTCPeerConnection): void {
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
      if (s) dropRepeatedHelloVerify(s);
    },
  });
}

function dropRepeatedHelloVerify(s: DtlsSocket): void {
  const handle = s.onHandleHandshakes;
  s.onHandleHandshakes = (assembled: Handshakes) =>
    handle(assembled.filter((h) => !(h.msg_type === HELLO_VERIFY_REQUEST && s.dtls.flight >= FLIGHT_3)));
}
