import { createSocket, type Socket } from 'node:dgram';
import type { RtpWriter, WhipPublisher } from '../client/index.ts';
import type { MediaKind } from '../membership/index.ts';
import { readRtpHeader } from '../../rtp-payload/index.ts';
import { GopCache, type ClockMapping } from '../webrtc/index.ts';
import type { CaptureClock } from './capture-clock.ts';

/** Where a publisher's sender reports go: its WHIP session, or the SFU in this process (an in-process publish). */
export interface SenderReportTarget {
  /** Whether reports can go out now (a WHIP peer: once connected). */
  live(): boolean;
  sendSenderReport(kind: MediaKind, mapping: ClockMapping): void;
}

/** A WHIP session as the target of its publisher's reports. */
export function whipReports(whip: WhipPublisher): SenderReportTarget {
  return { live: () => whip.pc.connectionState === 'connected', sendSenderReport: (kind, mapping) => whip.sendSenderReport(kind, mapping) };
}

/** Where one kind's RTP goes (from ffmpeg's loopback port, or the replay pacer): to `track` once it is set. */
export interface RtpInput {
  track: RtpWriter | undefined;
  /** Where its sender reports go, once the session is up. */
  reports: SenderReportTarget | undefined;
  deliver(msg: Buffer): void;
  /**
   * The WHIP peer connected: packets go to the track from now on, those of the current GOP held until now first
   * (`holdGop`).
   */
  connected(): void;
}

/** A packet held for the track, as the GOP cache reads it. */
interface HeldPacket {
  readonly header: { readonly ssrc: number; readonly timestamp: number };
  readonly payload: Buffer;
  readonly serializeSize: number;
  readonly bytes: Buffer;
}

function held(bytes: Buffer): HeldPacket | undefined {
  const h = readRtpHeader(bytes);
  return h && { header: { ssrc: h.ssrc, timestamp: h.timestamp }, payload: bytes.subarray(h.payloadOffset, h.payloadEnd), serializeSize: bytes.length, bytes };
}

/** ffmpeg's RTP has no retransmission: room for a few seconds of it while a busy event loop is not reading. */
const RECV_BUFFER_BYTES = 4 * 1024 * 1024;

/**
 * `reframe`, if given, rewrites the packets before they go to the track (H264Reframer: one frame later, with their
 * own sequence numbers); the capture clock still sees each packet as it arrives, so its sender reports map the
 * media's timestamps to the instants they came in.
 */
export function rtpInput(
  kind: MediaKind,
  clock: CaptureClock,
  onPacket: (msg: Buffer) => void,
  reframe?: (msg: Buffer) => Buffer[],
  /**
   * A source that cannot be asked for a keyframe (an ingest's encoder or camera): its video's current GOP (`codec`)
   * is held until the peer connects and then sent, so the channel gets the source's first keyframe (sent while the
   * session was still being set up) instead of waiting for its next one.
   */
  holdGop?: { readonly codec: string },
): RtpInput {
  let gop = holdGop && new GopCache<HeldPacket>(holdGop.codec);
  const write = (out: Buffer) => {
    if (!gop) return void input.track?.writeRtp(out);
    const p = held(out);
    if (p) gop.push(p);
  };
  const input: RtpInput = {
    track: undefined,
    reports: undefined,
    deliver(msg) {
      // RTCP (payload types 200-204 with the marker bit) shares ffmpeg's port: its reports are replaced by the capture clock's.
      if (msg.length < 12 || (msg[1]! >= 200 && msg[1]! <= 204)) return;
      const timestamp = msg.readUInt32BE(4);
      if (reframe) {
        for (const out of reframe(msg)) write(out);
      } else {
        write(msg);
      }
      onPacket(msg);
      // Reports from when they can go out (the first comes with the first packet after the peer connected).
      const reports = input.reports?.live() ? input.reports : undefined;
      if (!reports) return clock.observe(kind, timestamp, Date.now());
      const report = clock.report(kind, timestamp, Date.now());
      if (report) reports.sendSenderReport(kind, report);
    },
    connected() {
      const packets = gop?.packets() ?? [];
      gop = undefined;
      for (const p of packets) input.track?.writeRtp(p.bytes);
    },
  };
  return input;
}

export async function socketInto(input: RtpInput): Promise<Socket> {
  const sock = createSocket({ type: 'udp4', recvBufferSize: RECV_BUFFER_BYTES });
  sock.on('message', (msg) => input.deliver(msg));
  await new Promise<void>((resolve) => sock.bind(0, '127.0.0.1', resolve));
  return sock;
}


/** A publisher's packets sent so far, per kind, and when each of its kinds has sent one (it is then flowing). */
export interface PacketCounts {
  readonly packets: { audio: number; video: number };
  readonly allFlowing: Promise<void>;
  /** The `onPacket` of one kind's input. */
  count(kind: MediaKind): () => void;
}

/** `kinds`: the kinds the publisher sends (a source without audio, say, sends only video). */
export function packetCounts(kinds: readonly MediaKind[] = ['audio', 'video']): PacketCounts {
  const packets = { audio: 0, video: 0 };
  let flowing: () => void = () => undefined;
  const allFlowing = new Promise<void>((resolve) => (flowing = resolve));
  return {
    packets,
    allFlowing,
    count: (kind) => () => {
      packets[kind]++;
      if (kinds.every((k) => packets[k] > 0)) flowing();
    },
  };
}
