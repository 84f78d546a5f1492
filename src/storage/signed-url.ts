/**
 * Signed, expiring links to objects of the local bucket (docs/storage.md, "Who may read recordings"): an
 * HMAC-SHA256 over the object (bucket and key, decoded) and the expiry, like an S3 presigned URL. Pure.
 */
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/** The signing key, derived from a deployment secret every process shares (the app certificate). */
export function urlSigningKey(deploymentSecret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', deploymentSecret, 'reeltime', 'bucket-url-v1', 32));
}

const mac = (key: Buffer, bucket: string, objectKey: string, expires: number): string =>
  createHmac('sha256', key).update(`${bucket}\n${objectKey}\n${expires}`).digest('base64url');

/** The query string (without "?") that grants reading one object until `expires` (Unix seconds). */
export function signObject(key: Buffer, bucket: string, objectKey: string, expires: number): string {
  return `expires=${expires}&signature=${mac(key, bucket, objectKey, expires)}`;
}

export type SignatureCheck = 'ok' | 'missing' | 'expired' | 'invalid';

/** Checks `expires` and `signature` query values for one object at `nowSec`. */
export function checkObjectSignature(
  key: Buffer,
  bucket: string,
  objectKey: string,
  query: { readonly expires?: unknown; readonly signature?: unknown },
  nowSec: number,
): SignatureCheck {
  const { expires, signature } = query;
  if (expires === undefined && signature === undefined) return 'missing';
  if (typeof expires !== 'string' || typeof signature !== 'string' || !/^\d{1,12}$/.test(expires)) return 'invalid';
  const want = Buffer.from(mac(key, bucket, objectKey, Number(expires)));
  const got = Buffer.from(signature);
  if (want.length !== got.length || !timingSafeEqual(want, got)) return 'invalid';
  return Number(expires) < nowSec ? 'expired' : 'ok';
}

/**
 * A playlist served through a signed link names its segments relative to itself; a player resolves them without
 * the query, so each relative URI (segment lines and `URI="…"` attributes) gets its own signature, same expiry.
 */
export function signPlaylist(text: string, key: Buffer, bucket: string, playlistKey: string, expires: number): string {
  return rewritePlaylist(text, playlistKey, (target, uri) => `${uri}?${signObject(key, bucket, target, expires)}`);
}

/**
 * Each relative URI of a playlist (segment lines and `URI="…"` attributes) replaced by `link(target, uri)`, where
 * `target` is the object key it names (resolved against the playlist's own key); left as it is when `link` gives
 * undefined, and so are absolute URIs, URIs with a query and names climbing out of the bucket.
 */
export function rewritePlaylist(text: string, playlistKey: string, link: (target: string, uri: string) => string | undefined): string {
  const rewrite = (uri: string): string => {
    const target = uriTarget(playlistKey, uri);
    return target === undefined ? uri : (link(target, uri) ?? uri);
  };
  return text
    .split('\n')
    .map((line) => {
      const t = line.trim();
      if (t === '') return line;
      if (t.startsWith('#')) return line.replace(/URI="([^"]*)"/g, (_m, u: string) => `URI="${rewrite(u)}"`);
      return rewrite(t);
    })
    .join('\n');
}

/** The object keys a playlist's relative URIs name (those rewritePlaylist would rewrite), each once. */
export function playlistTargets(text: string, playlistKey: string): string[] {
  const targets = new Set<string>();
  rewritePlaylist(text, playlistKey, (target) => void targets.add(target));
  return [...targets];
}

/** The object key a relative URI of the playlist at `playlistKey` names, or undefined (absolute, queried, outside). */
function uriTarget(playlistKey: string, uri: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:|^\/|\?/i.test(uri)) return undefined;
  let decoded: string;
  try {
    decoded = decodeURIComponent(uri);
  } catch {
    return undefined;
  }
  const dir = playlistKey.includes('/') ? playlistKey.slice(0, playlistKey.lastIndexOf('/') + 1) : '';
  return normalise(dir + decoded);
}

/** Resolves "." and ".." of a relative key; undefined when it climbs out of the bucket. */
function normalise(path: string): string | undefined {
  const out: string[] = [];
  for (const p of path.split('/')) {
    if (p === '.' || p === '') continue;
    if (p === '..') {
      if (out.length === 0) return undefined;
      out.pop();
    } else out.push(p);
  }
  return out.join('/');
}
