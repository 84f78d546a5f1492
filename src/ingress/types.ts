/** The sources an ingress can take: pushed to reeltime (RTMP, SRT) or pulled by it (RTSP, WHEP). */
export const INGRESS_KINDS = Object.freeze(['rtmp', 'srt', 'rtsp', 'whep'] as const);
export type IngressKind = (typeof INGRESS_KINDS)[number];

/** How an RTSP source's media comes: interleaved in its TCP connection (the default) or as RTP over UDP. */
export const RTSP_TRANSPORTS = Object.freeze(['tcp', 'udp'] as const);
export type RtspTransport = (typeof RTSP_TRANSPORTS)[number];

/**
 * Where an ingress is: `waiting` for its source (created, or the source went away), `publishing` into its channel,
 * `failed` when its media could not be published (the reason in `error`; the next push tries again).
 */
export type IngressState = 'waiting' | 'publishing' | 'failed';

/** A validated create request. */
export interface IngressRequest {
  readonly cname: string;
  /** Integer text 1..4294967295: the participant the source appears as. */
  readonly uid: string;
  readonly kind: IngressKind;
  /**
   * The source reeltime connects to (checked by the outbound guard at every connection): pull kinds, and SRT in
   * caller mode (`srt://host:port?passphrase=…`: reeltime calls the encoder's listener).
   */
  readonly url?: string | undefined;
  /** RTSP only: how its media comes (default `tcp`). */
  readonly transport?: RtspTransport | undefined;
  /** WHEP only: the bearer token the source's server wants. A secret: stored, never answered or logged. */
  readonly token?: string | undefined;
}

/** One ingress as stored and answered. The stream key is a secret: never logged. */
export interface Ingress extends IngressRequest {
  readonly ingressId: string;
  readonly appId: string;
  /** Push kinds: the secret OBS calls "Stream Key". */
  readonly streamKey?: string | undefined;
  readonly state: IngressState;
  readonly error?: string | undefined;
  readonly createdMs: number;
  readonly updatedMs: number;
  /** SRT: the UDP port its listener takes. */
  readonly port?: number | undefined;
  /** While `publishing`: until when its process vouches for the publish (renewed while it runs). */
  readonly liveUntilMs?: number | undefined;
}

/**
 * The state to show: a `publishing` whose process stopped renewing it (it crashed or was killed, with other processes
 * still up to answer) is `waiting` again, as its source must connect anew. Rows written before the renewal existed
 * carry no time and are taken as they are.
 */
export function shownState(i: Pick<Ingress, 'state' | 'liveUntilMs'>, now: number): IngressState {
  return i.state === 'publishing' && i.liveUntilMs !== undefined && i.liveUntilMs < now ? 'waiting' : i.state;
}

/** Whether reeltime connects to the source (RTSP, WHEP, SRT caller) rather than waiting for it to connect. */
export const pullsSource = (i: Pick<IngressRequest, 'kind' | 'url'>): boolean => i.url !== undefined;
