/** The sources an ingress can take: pushed to reeltime (RTMP, SRT) or pulled by it (RTSP, WHEP). */
export const INGRESS_KINDS = Object.freeze(['rtmp', 'srt', 'rtsp', 'whep'] as const);
export type IngressKind = (typeof INGRESS_KINDS)[number];

/** Kinds whose source connects to reeltime with a URL and a stream key. */
export const PUSH_KINDS: ReadonlySet<IngressKind> = new Set<IngressKind>(['rtmp', 'srt']);

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
  /** Pull kinds: the source URL (checked by the outbound guard). */
  readonly url?: string | undefined;
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
}
