import { createSocket } from 'node:dgram';

export interface LoopbackStun {
  /** e.g. "stun:127.0.0.1:40123", for a werift client's iceServers. */
  readonly url: string;
  close(): Promise<void>;
}

const COOKIE = 0x2112a442;

/**
 * A STUN Binding responder on 127.0.0.1 (RFC 5389, XOR-MAPPED-ADDRESS only). werift's full-ICE agent falls back to a
 * public STUN server when it has none; pointing it here keeps every packet on loopback.
 */
export async function startLoopbackStun(): Promise<LoopbackStun> {
  const sock = createSocket('udp4');
  sock.on('message', (msg, from) => {
    if (msg.length < 20 || msg.readUInt16BE(0) !== 0x0001 || msg.readUInt32BE(4) !== COOKIE) return;
    const res = Buffer.alloc(32);
    res.writeUInt16BE(0x0101, 0); // Binding success response
    res.writeUInt16BE(12, 2); // one 12-byte attribute
    msg.copy(res, 4, 4, 20); // cookie + transaction id
    res.writeUInt16BE(0x0020, 20); // XOR-MAPPED-ADDRESS
    res.writeUInt16BE(8, 22);
    res.writeUInt16BE(0x0001, 24); // IPv4
    res.writeUInt16BE(from.port ^ (COOKIE >>> 16), 26);
    const ip = from.address.split('.').reduce((a, b) => (a << 8) + Number(b), 0) >>> 0;
    res.writeUInt32BE((ip ^ COOKIE) >>> 0, 28);
    sock.send(res, from.port, from.address);
  });
  await new Promise<void>((resolve) => sock.bind(0, '127.0.0.1', resolve));
  sock.unref();
  return {
    url: `stun:127.0.0.1:${sock.address().port}`,
    close: () => new Promise<void>((resolve) => sock.close(() => resolve())),
  };
}
