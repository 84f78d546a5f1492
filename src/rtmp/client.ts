/**
 * RtmpPublisher: publishes one stream to an RTMP(S) server over a socket of its own (the CDN push's client). The
 * stream key never leaves this process except inside the connection, and the connection goes to the address the
 * caller approved: for `rtmps://` too, with the certificate checked against the URL's host name.
 */
import { connect as tcpConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { Amf0Error } from './amf0.ts';
import { ChunkReader, encodeMessage, MSG, RtmpProtocolError } from './chunks.ts';
import type { FlvTagRead } from './flv.ts';
import { clientAck, clientHello, HANDSHAKE_SIZE } from './handshake.ts';
import { acknowledgement, CLIENT_CHUNK_SIZE, closePublish, mediaMessage, openPublish, publishStep, type Outgoing, type PublishState, type PublishTarget } from './publish.ts';

export interface RtmpPublisherOptions {
  readonly target: PublishTarget;
  /** Where to connect (the outbound guard's approved address); default the target's host. */
  readonly address?: string | undefined;
  /** Certificate authorities to trust besides the system's (a private CDN; tests). */
  readonly ca?: string | undefined;
  readonly now?: () => number;
}

/** Why a publish ended without being asked to: refused by the server, or the connection failed or closed. */
export type PublisherEnd = { readonly reason: string } | undefined;

export class RtmpPublisher {
  readonly #target: PublishTarget;
  readonly #socket: Socket;
  readonly #reader = new ChunkReader();
  #state: PublishState = { kind: 'connecting' };
  #handshaken = false;
  #c2Sent = false;
  #pending: Buffer = Buffer.alloc(0);
  #bytesIn = 0;
  /** Bytes received when we last acknowledged. */
  #acked = 0;
  #window = 2_500_000;
  #ended = false;
  #resolvePublished!: () => void;
  #resolveClosed!: (end: PublisherEnd) => void;
  /** Resolves once the server has started the publish. Never rejects: a publish that fails ends `closed` instead. */
  readonly published: Promise<void>;
  /** Resolves when the connection is gone: with the reason when it ended on its own, undefined after end()/destroy(). */
  readonly closed: Promise<PublisherEnd>;

  constructor(o: RtmpPublisherOptions) {
    this.#target = o.target;
    this.published = new Promise((r) => (this.#resolvePublished = r));
    this.closed = new Promise((r) => (this.#resolveClosed = r));
    const host = o.address ?? o.target.host;
    const now = o.now ?? Date.now;
    this.#socket = o.target.secure
      ? tlsConnect({ host, port: o.target.port, servername: isIP(o.target.host) === 0 ? o.target.host : undefined, ca: o.ca }, () => this.#socket.write(clientHello(now())))
      : tcpConnect({ host, port: o.target.port }, () => this.#socket.write(clientHello(now())));
    this.#socket.setNoDelay(true);
    this.#socket.on('data', (d: Buffer) => this.#receive(d));
    this.#socket.on('error', (e: NodeJS.ErrnoException) => this.#finish(`connection failed: ${e.code ?? e.message}`));
    this.#socket.on('close', () => this.#finish('the server closed the connection'));
  }

  get isPublished(): boolean {
    return this.#state.kind === 'published';
  }

  /** Bytes handed to the network so far. */
  get sentBytes(): number {
    return this.#socket.bytesWritten - this.#socket.writableLength;
  }

  /** Sends one FLV tag on the published stream; false when the socket asks the caller to wait for `drain`. */
  send(tag: FlvTagRead): boolean {
    if (this.#state.kind !== 'published') throw new Error('RtmpPublisher.send before the publish started');
    const out = mediaMessage(this.#state.streamId, tag);
    return out === undefined ? true : this.#write([out]);
  }

  onDrain(listener: () => void): void {
    this.#socket.on('drain', listener);
  }

  /** Ends the publish politely (FCUnpublish, deleteStream) and closes the connection once everything is sent. */
  end(): void {
    if (this.#ended) return;
    const state = this.#state;
    this.#ended = true;
    this.#resolveClosed(undefined);
    if (state.kind === 'published') this.#write(closePublish(this.#target, state.streamId));
    this.#socket.end();
  }

  destroy(): void {
    this.#ended = true;
    this.#resolveClosed(undefined);
    this.#socket.destroy();
  }

  #write(messages: readonly Outgoing[]): boolean {
    let ok = true;
    for (const { csid, message } of messages) ok = this.#socket.write(encodeMessage(csid, message, CLIENT_CHUNK_SIZE)) && ok;
    return ok;
  }

  #finish(reason: string): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#socket.destroy();
    this.#resolveClosed({ reason });
  }

  #receive(data: Buffer): void {
    this.#bytesIn += data.length;
    let d = data;
    if (!this.#handshaken) {
      this.#pending = Buffer.concat([this.#pending, data]);
      // C2 once S0 and S1 are in (a server may wait for it before S2); the rest once S2 is in too. The server's
      // version byte is not checked (servers answer 3, some other values).
      if (!this.#c2Sent && this.#pending.length >= 1 + HANDSHAKE_SIZE) {
        this.#c2Sent = true;
        this.#socket.write(clientAck(this.#pending.subarray(1, 1 + HANDSHAKE_SIZE)));
      }
      if (this.#pending.length < 1 + 2 * HANDSHAKE_SIZE) return;
      d = this.#pending.subarray(1 + 2 * HANDSHAKE_SIZE);
      this.#pending = Buffer.alloc(0);
      this.#handshaken = true;
      const open = openPublish(this.#target);
      this.#state = open.state;
      this.#write(open.send);
    }
    try {
      for (const m of this.#reader.push(d)) {
        if (m.type === MSG.windowAckSize && m.payload.length >= 4) this.#window = m.payload.readUInt32BE(0);
        const step = publishStep(this.#state, this.#target, m);
        const was = this.#state.kind;
        this.#state = step.state;
        this.#write(step.send);
        if (step.state.kind === 'refused') return this.#finish(`the server refused the publish: ${step.state.reason}`);
        if (step.state.kind === 'published' && was !== 'published') this.#resolvePublished();
      }
    } catch (e) {
      if (e instanceof RtmpProtocolError || e instanceof Amf0Error) return this.#finish(`the server broke the RTMP protocol: ${e.message}`);
      throw e;
    }
    if (this.#window > 0 && this.#bytesIn - this.#acked >= this.#window) {
      this.#acked = this.#bytesIn;
      this.#write([acknowledgement(this.#bytesIn >>> 0)]);
    }
  }
}
