/**
 * Publishing a stream to an RTMP server, the commands only (pure): where a URL says to publish, and the exchange a
 * publishing client runs after the handshake (connect → releaseStream, FCPublish, createStream → publish →
 * `NetStream.Publish.Start`), as OBS and ffmpeg run it. The socket, the chunk stream and the media are the caller's.
 */
import { decodeAmf0, encodeAmf0, type Amf0Object, type Amf0Value } from './amf0.ts';
import { MSG, type RtmpMessage } from './chunks.ts';

/** Where a publish goes, read from an `rtmp://` or `rtmps://` URL. */
export interface PublishTarget {
  readonly secure: boolean;
  /** The host as named in the URL (no brackets): what TLS verifies and what `tcUrl` carries. */
  readonly host: string;
  readonly port: number;
  /** The path up to its last segment: RTMP's application (`live`, `live2`, `app/instance`). */
  readonly app: string;
  /** The last path segment and the query: the stream key, a secret of the customer. */
  readonly streamName: string;
  /** The URL up to the stream key, which the CDN routes by. */
  readonly tcUrl: string;
}

/** The URL's parts (the split OBS's "server" and "stream key" fields make: the key is the last path segment). */
export function publishTarget(url: string): PublishTarget {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new RangeError('rtmpUrl must be an rtmp:// or rtmps:// URL');
  }
  if (u.protocol !== 'rtmp:' && u.protocol !== 'rtmps:') throw new RangeError('rtmpUrl must be an rtmp:// or rtmps:// URL');
  const secure = u.protocol === 'rtmps:';
  const path = u.pathname.replace(/^\/+/, '');
  const cut = path.lastIndexOf('/');
  if (cut <= 0 || cut === path.length - 1) throw new RangeError('rtmpUrl must name an application and a stream key (rtmp://host/app/key)');
  const app = path.slice(0, cut);
  const port = u.port === '' ? (secure ? 443 : 1935) : Number(u.port);
  return { secure, host: u.hostname.replace(/^\[(.*)\]$/, '$1'), port, app, streamName: `${path.slice(cut + 1)}${u.search}`, tcUrl: `${u.protocol}//${u.host}/${app}` };
}

/** A message to send and the chunk stream it goes on. */
export interface Outgoing {
  readonly csid: number;
  readonly message: RtmpMessage;
}

/** Chunk streams, as ffmpeg's client numbers them: control, commands, audio, video, the stream's data. */
export const CHUNK_STREAM = Object.freeze({ control: 2, command: 3, audio: 4, video: 6, data: 5 });

export type PublishState =
  | { readonly kind: 'connecting' }
  | { readonly kind: 'creating-stream' }
  | { readonly kind: 'publishing-requested'; readonly streamId: number }
  | { readonly kind: 'published'; readonly streamId: number }
  | { readonly kind: 'refused'; readonly reason: string };

const TXN = Object.freeze({ connect: 1, releaseStream: 2, fcPublish: 3, createStream: 4 });

/** What one message from the server changes: the state after it, and the messages to send in answer. */
export interface PublishStep {
  readonly state: PublishState;
  readonly send: readonly Outgoing[];
}

const command = (streamId: number, values: readonly Amf0Value[]): Outgoing => ({
  csid: streamId === 0 ? CHUNK_STREAM.command : CHUNK_STREAM.data,
  message: { type: MSG.commandAmf0, streamId, timestamp: 0, payload: encodeAmf0(values) },
});

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
};

/** Our chunk size: fewer chunk headers for media than RTMP's 128 bytes. */
export const CLIENT_CHUNK_SIZE = 4096;

/** The first messages after the handshake: our chunk size and `connect`. */
export function openPublish(target: PublishTarget): PublishStep {
  const setChunkSize: Outgoing = { csid: CHUNK_STREAM.control, message: { type: MSG.setChunkSize, streamId: 0, timestamp: 0, payload: u32(CLIENT_CHUNK_SIZE) } };
  const connect = command(0, [
    'connect',
    TXN.connect,
    { app: target.app, type: 'nonprivate', flashVer: 'FMLE/3.0 (compatible; reeltime)', tcUrl: target.tcUrl },
  ]);
  return { state: { kind: 'connecting' }, send: [setChunkSize, connect] };
}

/** The words of a refusal (`code: description`) with the stream key left out: servers quote it back. */
function refusal(info: Amf0Value, fallback: string, target: PublishTarget): string {
  const o = info !== null && typeof info === 'object' && !Array.isArray(info) ? (info as Amf0Object) : {};
  const code = typeof o.code === 'string' ? o.code : fallback;
  const description = typeof o.description === 'string' && o.description !== '' ? `: ${o.description}` : '';
  const key = target.streamName.split('?')[0]!;
  const words = `${code}${description}`;
  return key === '' ? words : words.split(key).join('[redacted]');
}

/**
 * One message from the server, in state `state`. Protocol control (chunk size, acknowledgements) is the caller's;
 * this answers pings and the commands.
 */
export function publishStep(state: PublishState, target: PublishTarget, m: RtmpMessage): PublishStep {
  const stay: PublishStep = { state, send: [] };
  if (m.type === MSG.userControl && m.payload.length >= 6 && m.payload.readUInt16BE(0) === 6) {
    // Ping request: answered with the same timestamp.
    const pong = Buffer.concat([Buffer.from([0, 7]), m.payload.subarray(2, 6)]);
    return { state, send: [{ csid: CHUNK_STREAM.control, message: { type: MSG.userControl, streamId: 0, timestamp: 0, payload: pong } }] };
  }
  if (m.type !== MSG.commandAmf0 && m.type !== MSG.commandAmf3) return stay;
  const values = decodeAmf0(m.type === MSG.commandAmf3 ? m.payload.subarray(1) : m.payload);
  const [name, txn] = values;
  if (name === '_error' && (txn === TXN.connect || txn === TXN.createStream)) {
    return { state: { kind: 'refused', reason: refusal(values[3], txn === TXN.connect ? 'connect refused' : 'createStream refused', target) }, send: [] };
  }
  if (state.kind === 'connecting' && name === '_result' && txn === TXN.connect) {
    return {
      state: { kind: 'creating-stream' },
      send: [
        command(0, ['releaseStream', TXN.releaseStream, null, target.streamName]),
        command(0, ['FCPublish', TXN.fcPublish, null, target.streamName]),
        command(0, ['createStream', TXN.createStream, null]),
      ],
    };
  }
  if (state.kind === 'creating-stream' && name === '_result' && txn === TXN.createStream) {
    const streamId = values[3];
    if (typeof streamId !== 'number' || !Number.isInteger(streamId) || streamId < 0) return { state: { kind: 'refused', reason: 'createStream answered no stream id' }, send: [] };
    return { state: { kind: 'publishing-requested', streamId }, send: [command(streamId, ['publish', 0, null, target.streamName, 'live'])] };
  }
  if (name === 'onStatus' && (state.kind === 'publishing-requested' || state.kind === 'published')) {
    const info = values[3];
    const o = info !== null && typeof info === 'object' && !Array.isArray(info) ? (info as Amf0Object) : {};
    if (o.level === 'error') return { state: { kind: 'refused', reason: refusal(info, 'publish refused', target) }, send: [] };
    if (state.kind === 'publishing-requested' && o.code === 'NetStream.Publish.Start') return { state: { kind: 'published', streamId: state.streamId }, send: [] };
  }
  return stay;
}

/** The messages that end a publish politely: FCUnpublish and deleteStream. */
export function closePublish(target: PublishTarget, streamId: number): Outgoing[] {
  return [command(0, ['FCUnpublish', 0, null, target.streamName]), command(0, ['deleteStream', 0, null, streamId])];
}

/**
 * The message carrying one FLV tag on the published stream: audio and video as they are, script data (ffmpeg's
 * `onMetaData`) behind `@setDataFrame`, as RTMP servers store it.
 */
export function mediaMessage(streamId: number, tag: { readonly type: number; readonly timestamp: number; readonly data: Buffer }): Outgoing | undefined {
  if (tag.type === MSG.audio) return { csid: CHUNK_STREAM.audio, message: { type: MSG.audio, streamId, timestamp: tag.timestamp, payload: tag.data } };
  if (tag.type === MSG.video) return { csid: CHUNK_STREAM.video, message: { type: MSG.video, streamId, timestamp: tag.timestamp, payload: tag.data } };
  if (tag.type === MSG.dataAmf0) {
    return { csid: CHUNK_STREAM.data, message: { type: MSG.dataAmf0, streamId, timestamp: tag.timestamp, payload: Buffer.concat([encodeAmf0(['@setDataFrame']), tag.data]) } };
  }
  return undefined;
}

/** The acknowledgement RTMP asks for once a window of bytes has been received. */
export function acknowledgement(bytesReceived: number): Outgoing {
  return { csid: CHUNK_STREAM.control, message: { type: MSG.ack, streamId: 0, timestamp: 0, payload: u32(bytesReceived) } };
}
