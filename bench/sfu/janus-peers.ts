// The bench's peers on Janus: publishers are reeltime's own synthetic publishers (the same replayed VP8 + Opus
// packets as on reeltime), whose WHIP POST a small loopback adapter turns into a VideoRoom `joinandconfigure`;
// subscribers are werift peers that answer the VideoRoom's offer, as Janus's subscribers do (server offers).
import { createServer, type Server } from 'node:http';
import { RTCPeerConnection } from 'werift';
import { loopbackClientConfig, gatheringComplete } from '../../src/channel/webrtc/index.ts';
import { sharedLoopbackStun } from '../../src/channel/client/loopback-stun.ts';
import { connected } from '../../src/channel/client/peer.ts';
import type { JanusSession } from './janus.ts';

/** A room per channel name: Janus rooms are numbers. */
export function roomOf(cname: string): number {
  let h = 7;
  for (const c of cname) h = (h * 31 + c.charCodeAt(0)) % 1_000_000_007;
  return h;
}

export interface WhipAdapter {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * `POST /rtc/v1/apps/:app/channels/:cname/whip?uid=N` with an SDP offer → a publisher handle joining room
 * roomOf(cname) as feed N; 201 with the answer; `DELETE /session/:handle` leaves.
 */
export async function startWhipAdapter(session: JanusSession, maxPublishers: number): Promise<WhipAdapter> {
  /** Each room is created once; publishers starting together wait for the same creation. */
  const rooms = new Map<number, Promise<unknown>>();
  const server: Server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://adapter');
      if (req.method === 'DELETE') {
        res.writeHead(200).end();
        return;
      }
      const cname = decodeURIComponent(url.pathname.split('/')[6] ?? '');
      const uid = Number(url.searchParams.get('uid'));
      let sdp = '';
      for await (const chunk of req) sdp += chunk;
      const room = roomOf(cname);
      const handle = await session.attach();
      if (!rooms.has(room)) {
        rooms.set(room, session.request(handle, { request: 'create', room, publishers: maxPublishers, bitrate: 0, videocodec: 'vp8', audiocodec: 'opus', notify_joining: false }));
      }
      await rooms.get(room);
      const joined = await session.message(handle, { request: 'joinandconfigure', room, ptype: 'publisher', id: uid, audio: true, video: true }, { type: 'offer', sdp });
      if (!joined.jsep) throw new Error(`no answer from Janus: ${JSON.stringify(joined)}`);
      res.writeHead(201, { 'content-type': 'application/sdp', location: `/session/${handle}` }).end(joined.jsep.sdp);
    } catch (e) {
      res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'janus', reason: (e as Error).message }));
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) };
}

export interface CountingSubscriber {
  /** RTP packets received, and video frames (packets with the marker bit). */
  readonly counts: { packets: number; frames: number };
  /** Resolves once the peer is connected (ICE and DTLS done). */
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

/** A werift subscriber to one feed of a room: joins, answers Janus's offer, starts, counts what arrives. */
export async function janusSubscribe(session: JanusSession, cname: string, feed: number): Promise<CountingSubscriber> {
  const handle = await session.attach();
  const attached = await session.message(handle, { request: 'join', room: roomOf(cname), ptype: 'subscriber', streams: [{ feed }] });
  if (!attached.jsep) throw new Error(`no offer from Janus: ${JSON.stringify(attached)}`);
  const pc = new RTCPeerConnection(loopbackClientConfig((await sharedLoopbackStun()).url));
  const counts = { packets: 0, frames: 0 };
  pc.onTrack.subscribe((track) => {
    track.onReceiveRtp.subscribe((p) => {
      counts.packets++;
      if (track.kind === 'video' && p.header.marker) counts.frames++;
    });
  });
  await pc.setRemoteDescription(attached.jsep);
  await pc.setLocalDescription(await pc.createAnswer());
  await gatheringComplete(pc);
  await session.message(handle, { request: 'start' }, { type: 'answer', sdp: pc.localDescription!.sdp });
  return {
    counts,
    ready: connected(pc),
    async close() {
      await session.message(handle, { request: 'leave' }).catch(() => undefined);
      await pc.close().catch(() => undefined);
    },
  };
}
