/**
 * One RTMP connection of a publisher (OBS, ffmpeg): handshake, then the commands of a publish (connect,
 * releaseStream, FCPublish, createStream, publish) and its media. The stream key of `publish` is checked by the
 * `authorize` callback before any media is taken; a refused key gets `NetStream.Publish.BadName` and the connection
 * closes. Accepted media goes out as an FLV stream to the writable `authorize` returned, with back-pressure (the
 * socket pauses while the writable is full).
 */
import type { Socket } from 'node:net';
import type { Writable } from 'node:stream';
import { decodeAmf0, encodeAmf0, type Amf0Object, type Amf0Value, ChunkReader, encodeMessage, MSG, RtmpProtocolError, type RtmpMessage, FLV_TAG, flvHeader, flvTag, answerHandshake, HANDSHAKE_SIZE } from '../../rtmp/index.ts';

/** Where an accepted publish's media goes, and how its end is told. */
export interface PublishSink {
  /** Receives the FLV stream (header first). */
  readonly flv: Writable;
  /** The connection ended (the client unpublished, closed, or broke the protocol). Called once. */
  end(reason: string): void;
}

/** The answer to a publish: a sink, or a refusal with the reason the client is told. */
export type PublishDecision = { readonly ok: true; readonly sink: PublishSink } | { readonly ok: false; readonly reason: string };

export interface SessionOptions {
  /** The application the Server URL names (its path); another is refused at connect. */
  readonly app: string;
  /** Checks a stream key (never logged); `disconnect` ends the connection later (the ingress was deleted, its media failed). */
  authorize(streamKey: string, disconnect: (reason: string) => void): Promise<PublishDecision>;
  /** A publish must be accepted within this long from the first byte. */
  readonly handshakeTimeoutMs: number;
  readonly now: () => number;
  readonly onError?: (message: string) => void;
}

const OUT_CHUNK_SIZE = 4096;
const WINDOW_ACK_SIZE = 2_500_000;
/** The message stream createStream hands out (one publish per connection). */
const STREAM_ID = 1;
/** Media an encoder may send while its key is being checked (a few seconds of a high bitrate). */
const MAX_EARLY_BYTES = 4 * 1024 * 1024;
/** A publishing connection that sends nothing for this long is closed (a source that vanished without a FIN). */
const IDLE_TIMEOUT_MS = 30_000;

const str = (v: Amf0Value): string | undefined => (typeof v === 'string' ? v : undefined);

export function serveRtmpConnection(socket: Socket, opts: SessionOptions): void {
  let phase: 'c0c1' | 'c2' | 'chunks' | 'closed' = 'c0c1';
  let pending = Buffer.alloc(0);
  const reader = new ChunkReader();
  let sink: PublishSink | undefined;
  let publishing = false;
  /** Whether the socket is paused until the FLV writable drains. */
  let draining = false;
  /** Media and metadata sent while the key is being checked (an encoder that does not wait for Publish.Start). */
  let early: RtmpMessage[] = [];
  let earlyBytes = 0;
  let connected = false;
  let bytesIn = 0;
  let ackedAt = 0;
  let clientWindow = 0;
  const timer = setTimeout(() => close('no publish within the handshake timeout'), opts.handshakeTimeoutMs);
  socket.setNoDelay(true);

  const send = (csid: number, type: number, streamId: number, payload: Buffer) => {
    if (!socket.writable) return;
    socket.write(encodeMessage(csid, { type, streamId, timestamp: 0, payload }, OUT_CHUNK_SIZE));
  };
  const u32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(n >>> 0);
    return b;
  };
  const command = (streamId: number, values: readonly Amf0Value[]) => send(streamId === 0 ? 3 : 5, MSG.commandAmf0, streamId, encodeAmf0(values));
  const status = (level: 'status' | 'error', code: string, description: string) =>
    command(STREAM_ID, ['onStatus', 0, null, { level, code, description }]);

  function close(reason: string): void {
    if (phase === 'closed') return;
    phase = 'closed';
    clearTimeout(timer);
    socket.end();
    setTimeout(() => socket.destroy(), 1000).unref();
    const s = sink;
    sink = undefined;
    if (s) {
      s.flv.end();
      s.end(reason);
    }
  }

  function write(tag: Buffer): void {
    if (!sink || sink.flv.destroyed) return;
    if (!sink.flv.write(tag) && !draining) {
      draining = true;
      socket.pause();
      sink.flv.once('drain', () => {
        draining = false;
        socket.resume();
      });
    }
  }

  async function onCommand(values: Amf0Value[], streamId: number): Promise<void> {
    const [name, txid] = [str(values[0]), typeof values[1] === 'number' ? values[1] : 0];
    switch (name) {
      case 'connect': {
        const info = (values[2] ?? {}) as Amf0Object;
        const app = (str(info.app) ?? '').replace(/\/+$/, '').split('?')[0];
        if (app !== opts.app) {
          command(0, ['_error', txid, null, { level: 'error', code: 'NetConnection.Connect.Rejected', description: `unknown application "${app}"` }]);
          return close(`unknown application "${app}"`);
        }
        connected = true;
        send(2, MSG.windowAckSize, 0, u32(WINDOW_ACK_SIZE));
        send(2, MSG.setPeerBandwidth, 0, Buffer.concat([u32(WINDOW_ACK_SIZE), Buffer.from([2])]));
        send(2, MSG.setChunkSize, 0, u32(OUT_CHUNK_SIZE));
        command(0, [
          '_result',
          txid,
          { fmsVer: 'FMS/3,5,7,7009', capabilities: 31 },
          { level: 'status', code: 'NetConnection.Connect.Success', description: 'Connection succeeded.', objectEncoding: 0 },
        ]);
        return;
      }
      case 'releaseStream':
      case 'FCPublish':
        if (txid > 0) command(0, ['_result', txid, null]);
        return;
      case 'createStream':
        command(0, ['_result', txid, null, STREAM_ID]);
        return;
      case 'publish': {
        if (!connected || publishing || sink) return close('publish out of order');
        // The key may carry a query (`key?param=…`, as some encoders add): the key is what comes before it.
        const key = (str(values[3]) ?? '').split('?')[0]!;
        publishing = true;
        const decision = await opts.authorize(key, close);
        if (phase === 'closed') {
          if (decision.ok) decision.sink.end('the connection closed before publishing');
          return;
        }
        if (!decision.ok) {
          status('error', 'NetStream.Publish.BadName', decision.reason);
          return close(`publish refused: ${decision.reason}`);
        }
        clearTimeout(timer);
        sink = decision.sink;
        sink.flv.once('error', () => close('the media pipeline stopped reading'));
        sink.flv.write(flvHeader());
        // What came during the check goes first (the AVC sequence header may be in it): in order, then the rest.
        const held = early;
        early = [];
        try {
          for (const m of held) onMessage(m);
        } catch (e) {
          return close(`protocol error: ${(e as Error).message}`);
        }
        socket.setTimeout(IDLE_TIMEOUT_MS, () => close(`no data for ${IDLE_TIMEOUT_MS / 1000} s`));
        // Stream Begin for the stream, then the status the encoder waits for before it sends media.
        send(2, MSG.userControl, 0, Buffer.concat([Buffer.from([0, 0]), u32(streamId || STREAM_ID)]));
        status('status', 'NetStream.Publish.Start', 'Publishing.');
        return;
      }
      case 'FCUnpublish':
      case 'deleteStream':
      case 'closeStream':
        if (sink) close('the source unpublished');
        return;
      default:
        return; // _checkbw, getStreamLength and the like: nothing to answer for a publish
    }
  }

  function onMessage(m: RtmpMessage): void {
    if ((m.type === MSG.audio || m.type === MSG.video || m.type === MSG.dataAmf0) && publishing && !sink) {
      earlyBytes += m.payload.length;
      if (earlyBytes > MAX_EARLY_BYTES) throw new RtmpProtocolError(`over ${MAX_EARLY_BYTES} bytes of media before the publish was accepted`);
      early.push(m);
      return;
    }
    switch (m.type) {
      case MSG.setChunkSize:
        return; // the reader applied it as it read it
      case MSG.windowAckSize:
        clientWindow = m.payload.readUInt32BE(0);
        return;
      case MSG.commandAmf0:
      case MSG.commandAmf3: {
        const values = decodeAmf0(m.type === MSG.commandAmf3 ? m.payload.subarray(1) : m.payload);
        onCommand(values, m.streamId).catch((e: unknown) => close(`command failed: ${(e as Error).message}`));
        return;
      }
      case MSG.dataAmf0: {
        if (!sink) return;
        const values = decodeAmf0(m.payload);
        // `@setDataFrame("onMetaData", {...})` is stored as the FLV script tag `onMetaData {...}`.
        const data = values[0] === '@setDataFrame' ? values.slice(1) : values;
        if (data[0] === 'onMetaData') write(flvTag(FLV_TAG.script, 0, encodeAmf0(data)));
        return;
      }
      case MSG.video:
        // Passed through, so only H.264 (FLV codec id 7) can be taken; the enhanced-RTMP header bit is another codec.
        if (sink && m.payload.length > 0 && ((m.payload[0]! & 0x80) !== 0 || (m.payload[0]! & 0x0f) !== 7)) {
          return close(`video must be H.264 (FLV codec id 7), got ${(m.payload[0]! & 0x80) !== 0 ? 'an enhanced-RTMP codec' : `codec id ${m.payload[0]! & 0x0f}`}`);
        }
        if (sink && m.payload.length > 0) write(flvTag(FLV_TAG.video, m.timestamp, m.payload));
        return;
      case MSG.audio:
        if (sink && m.payload.length > 0) write(flvTag(FLV_TAG.audio, m.timestamp, m.payload));
        return;
      default:
        return; // acknowledgements, user control (ping responses), peer bandwidth, aborts
    }
  }

  socket.on('data', (data: Buffer) => {
    if (phase === 'closed') return;
    bytesIn += data.length;
    try {
      if (phase !== 'chunks') {
        pending = Buffer.concat([pending, data]);
        if (phase === 'c0c1') {
          if (pending.length < 1 + HANDSHAKE_SIZE) return;
          if (pending[0] !== 3) throw new RtmpProtocolError(`RTMP version ${pending[0]} is not supported (3 is)`);
          const { s1, s2 } = answerHandshake(pending.subarray(1, 1 + HANDSHAKE_SIZE), opts.now());
          socket.write(Buffer.concat([Buffer.from([3]), s1, s2]));
          pending = pending.subarray(1 + HANDSHAKE_SIZE);
          phase = 'c2';
        }
        if (pending.length < HANDSHAKE_SIZE) return;
        data = pending.subarray(HANDSHAKE_SIZE);
        pending = Buffer.alloc(0);
        phase = 'chunks';
      }
      for (const m of reader.push(data)) onMessage(m);
      if (clientWindow > 0 && bytesIn - ackedAt >= clientWindow) {
        ackedAt = bytesIn;
        send(2, MSG.ack, 0, u32(bytesIn));
      }
    } catch (e) {
      opts.onError?.((e as Error).message);
      close(`protocol error: ${(e as Error).message}`);
    }
  });
  socket.on('error', () => close('connection error'));
  socket.on('close', () => close('connection closed'));
}
