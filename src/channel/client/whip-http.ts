import { guardedFetch, type OutboundPolicy } from '../../net/index.ts';

/** A refusal from a WHIP/WHEP endpoint, with the server's `{error, reason}`. */
export class WhipHttpError extends Error {
  override readonly name = 'WhipHttpError';
  constructor(
    readonly status: number,
    readonly code: string,
    readonly reason: string,
  ) {
    super(`HTTP ${status} ${code}: ${reason}`);
  }
}

export interface WhipExchange {
  readonly answer: string;
  /** Absolute session URL (for DELETE / PATCH). */
  readonly location: string;
  readonly etag: string | undefined;
}

/** Redirects followed per POST: one is what a cluster of channel nodes gives (docs/deployment.md). */
const MAX_REDIRECTS = 3;

/**
 * Client tools (CLI, tests, synthetic publishers) talk to the server their user named, private or not; a server
 * process passes its peer rule instead (docs/deployment.md, "Peer URLs"). Either way every hop goes through the
 * outbound URL guard (http(s) only, connected to the address that was checked).
 */
const CLIENT_POLICY: OutboundPolicy = { allowPrivate: true };

/**
 * POSTs an SDP offer to a WHIP or WHEP endpoint (RFC 9725 section 4.2). A 307/308 to the node hosting the
 * channel is followed here rather than by fetch, which would drop the Authorization header on the way to
 * another origin; the token goes only to http(s) targets of the same service.
 */
export async function postOffer(endpoint: string, offer: string, token: string | undefined, policy = CLIENT_POLICY): Promise<WhipExchange> {
  let url = endpoint;
  let res: Response;
  for (let hops = 0; ; hops++) {
    res = await guardedFetch(
      url,
      { method: 'POST', headers: { 'content-type': 'application/sdp', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: offer },
      policy,
    );
    const to = res.headers.get('location');
    if ((res.status !== 307 && res.status !== 308) || !to) break;
    await res.body?.cancel();
    const next = new URL(to, url);
    if (hops >= MAX_REDIRECTS || (next.protocol !== 'http:' && next.protocol !== 'https:')) {
      throw new WhipHttpError(res.status, 'bad_redirect', `refusing to follow a redirect to ${next.origin}`);
    }
    url = next.toString();
  }
  const text = await res.text();
  if (res.status !== 201) throw refusal(res.status, text);
  const location = res.headers.get('location');
  if (!location) throw new WhipHttpError(res.status, 'no_location', 'the 201 response has no Location header');
  return { answer: text, location: new URL(location, url).toString(), etag: res.headers.get('etag') ?? undefined };
}

/** Reads an error answer's `{error, reason}` (or its text). */
function refusal(status: number, text: string): WhipHttpError {
  let code = 'http_error';
  let reason = text;
  try {
    const j = JSON.parse(text) as { error?: string; reason?: string };
    code = j.error ?? code;
    reason = j.reason ?? reason;
  } catch {
    // not JSON: keep the text
  }
  return new WhipHttpError(status, code, reason);
}

/**
 * Asks for an ICE restart (RFC 9725 section 4.3.2): PATCHes the session with `If-Match: *` and this side's new
 * fragment; answers the server's fragment and new ETag.
 */
export async function patchIceRestart(location: string, frag: string, policy = CLIENT_POLICY): Promise<{ frag: string; etag: string | undefined }> {
  const res = await guardedFetch(
    location,
    { method: 'PATCH', headers: { 'content-type': 'application/trickle-ice-sdpfrag', 'if-match': '*' }, body: frag },
    policy,
  );
  const text = await res.text();
  if (res.status !== 200) throw refusal(res.status, text);
  return { frag: text, etag: res.headers.get('etag') ?? undefined };
}

/** Ends a session; a session the server already ended is not an error. */
/**
 * Tells a WHEP session the size its video is drawn at (reeltime's `POST …/fit`): a simulcast publisher's smallest
 * layer that covers it. Best effort: a node without the route (another WHEP server) or a session gone is no error.
 */
export async function fitSession(location: string, size: { readonly width: number; readonly height: number }, policy = CLIENT_POLICY): Promise<void> {
  await guardedFetch(`${location}/fit`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(size) }, policy)
    .then((r) => r.body?.cancel())
    .catch(() => undefined);
}

export async function deleteSession(location: string, policy = CLIENT_POLICY): Promise<void> {
  await guardedFetch(location, { method: 'DELETE' }, policy).then((r) => r.body?.cancel()).catch(() => undefined);
}
