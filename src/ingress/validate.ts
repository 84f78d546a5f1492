import { INGRESS_KINDS, RTSP_TRANSPORTS, type IngressKind, type IngressRequest, type RtspTransport } from './types.ts';
import { IngressError } from './errors.ts';

/** The channel-name alphabet of the channel module (RTC channel names), at most 64 characters. */
const CNAME = /^[A-Za-z0-9 !#$%&()+\-:;<=.>?@[\]^_{|}~,]{1,64}$/;
const FIELDS: ReadonlySet<string> = new Set(['cname', 'uid', 'kind', 'url', 'transport', 'token']);
const MAX_TOKEN = 4096;
const MAX_URL = 2048;
/** The schemes each kind's `url` takes (SRT's only in caller mode; RTMP takes none). */
const URL_SCHEMES: Readonly<Record<Exclude<IngressKind, 'rtmp'>, readonly string[]>> = { rtsp: ['rtsp:', 'rtsps:'], whep: ['http:', 'https:'], srt: ['srt:'] };

const invalid = (field: string, rule: string): never => {
  throw new IngressError('invalidParameter', `${field}: ${rule}`);
};

/** uid as integer text 1..4294967295; a JSON number of that range is taken too. */
export function parseIngressUid(raw: unknown, field = 'uid'): string {
  const text = typeof raw === 'number' && Number.isInteger(raw) ? String(raw) : raw;
  if (typeof text !== 'string' || !/^[0-9]{1,10}$/.test(text) || Number(text) < 1 || Number(text) > 0xffffffff) {
    return invalid(field, 'must be an integer from 1 to 4294967295 (as text or a number)');
  }
  return String(Number(text));
}

function parseKind(raw: unknown): IngressKind {
  if (typeof raw !== 'string' || !(INGRESS_KINDS as readonly string[]).includes(raw)) {
    return invalid('kind', `must be one of ${INGRESS_KINDS.map((k) => `"${k}"`).join(', ')}`);
  }
  return raw as IngressKind;
}

function parseUrl(raw: unknown, kind: IngressKind): string | undefined {
  if (kind === 'rtmp') {
    if (raw !== undefined) invalid('url', 'must be absent for kind "rtmp": the source pushes to the URL this API answers');
    return undefined;
  }
  // SRT without a URL: reeltime listens and the encoder calls it; with one, reeltime calls the encoder's listener.
  if (raw === undefined) return kind === 'srt' ? undefined : invalid('url', `is required for kind "${kind}" (the source to pull)`);
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > MAX_URL) return invalid('url', `must be a string of 1 to ${MAX_URL} characters`);
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return invalid('url', 'must be an absolute URL');
  }
  const schemes = URL_SCHEMES[kind];
  if (!schemes.includes(u.protocol)) invalid('url', `must use ${schemes.map((s) => s.slice(0, -1)).join(' or ')} for kind "${kind}"`);
  if (!u.hostname) invalid('url', 'must name a host');
  if (kind === 'srt') {
    if (!u.port) invalid('url', 'must name the port of the SRT listener (srt://host:port)');
    const mode = u.searchParams.get('mode');
    if (mode !== null && mode !== 'caller') invalid('url', 'mode: reeltime calls the listener at this URL, so mode must be absent or "caller"');
    const passphrase = u.searchParams.get('passphrase');
    if (passphrase !== null && (passphrase.length < 10 || passphrase.length > 79)) invalid('url', 'passphrase: SRT takes 10 to 79 characters');
  }
  return raw;
}

function parseTransport(raw: unknown, kind: IngressKind): RtspTransport | undefined {
  if (raw === undefined) return undefined;
  if (kind !== 'rtsp') return invalid('transport', `is for kind "rtsp" only, not "${kind}"`);
  if (typeof raw !== 'string' || !(RTSP_TRANSPORTS as readonly string[]).includes(raw)) {
    return invalid('transport', `must be one of ${RTSP_TRANSPORTS.map((t) => `"${t}"`).join(', ')}`);
  }
  return raw as RtspTransport;
}

/** WHEP only: the bearer token the source's server wants (RFC 9725 §4.5), visible ASCII. */
function parseToken(raw: unknown, kind: IngressKind): string | undefined {
  if (raw === undefined) return undefined;
  if (kind !== 'whep') return invalid('token', `is for kind "whep" only, not "${kind}"`);
  if (typeof raw !== 'string' || !/^[\x21-\x7e]+$/.test(raw) || raw.length > MAX_TOKEN) return invalid('token', `must be 1 to ${MAX_TOKEN} visible ASCII characters`);
  return raw;
}

/** Checks a create body; throws IngressError `invalidParameter` naming the first field that breaks its rule. */
export function validateIngressRequest(body: unknown): IngressRequest {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return invalid('body', 'must be a JSON object');
  const b = body as Record<string, unknown>;
  for (const key of Object.keys(b)) if (!FIELDS.has(key)) invalid(key, `is not a field of an ingress (fields: ${[...FIELDS].join(', ')})`);
  if (typeof b.cname !== 'string' || !CNAME.test(b.cname)) {
    invalid('cname', 'must be 1 to 64 characters of letters, digits, space and !#$%&()+-:;<=.>?@[]^_{|}~,');
  }
  const uid = parseIngressUid(b.uid);
  const kind = parseKind(b.kind);
  const url = parseUrl(b.url, kind);
  const transport = parseTransport(b.transport, kind);
  const token = parseToken(b.token, kind);
  return {
    cname: b.cname as string,
    uid,
    kind,
    ...(url !== undefined ? { url } : {}),
    ...(transport !== undefined ? { transport } : {}),
    ...(token !== undefined ? { token } : {}),
  };
}
