import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { contentTypeFor, isRewrittenObject, SEGMENT_MAX_AGE_SECONDS } from './naming.ts';
import { parseRange } from './range.ts';
import { checkObjectSignature, signPlaylist } from './signed-url.ts';
import { localObjectPath } from './uploaders/index.ts';
import type { BasicLogin } from '../http/index.ts';

/**
 * Who may read: anyone (development), or holders of a signed, unexpired link or of a customer's credentials, for
 * the objects its apps recorded (docs/storage.md).
 */
export type BucketAccess =
  | { readonly public: true }
  | {
      readonly public: false;
      readonly key: Buffer;
      readonly nowSec: () => number;
      /** The customer an `Authorization` header names (HTTP Basic, as the recording API, throttled alike). */
      readonly login: (authorization: string | undefined, address: string | undefined) => BasicLogin<{ readonly appIds: readonly string[] }>;
      /** Whether a session of one of `appIds` wrote this object. */
      readonly ownedBy: (appIds: readonly string[], bucket: string, key: string) => Promise<boolean>;
    };

/** The segments of a request path after `prefix`, each decoded once; undefined when one is not valid URL encoding. */
export function decodedPathAfter(url: string, prefix: string): string[] | undefined {
  // The raw path, decoded once per segment (the router's decoded wildcard would be decoded twice here).
  try {
    return url.split('?')[0]!.slice(prefix.length).split('/').map((p) => decodeURIComponent(p));
  } catch {
    return undefined;
  }
}

/**
 * Serves the local bucket read-only at /bucket/<bucket>/<key> so recordings play in a browser: range
 * requests, content types by extension, CORS for players on other origins, nothing outside the bucket root.
 */
export function registerBucketRoute(app: FastifyInstance, root: string, access: BucketAccess = { public: true }): void {
  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    const parts = decodedPathAfter(req.url, '/bucket/');
    if (!parts) return reply.code(400).send({ error: 'bad_path', message: 'the object path is not valid URL encoding' });
    const [bucket, ...keyParts] = parts;
    const key = keyParts.join('/');
    const path = bucket && key ? localObjectPath(root, bucket, key) : undefined;
    if (!path) return reply.code(404).send({ error: 'not_found', message: 'no such object' });
    let signedUntil: number | undefined;
    let credentialed = false;
    if (!access.public) {
      // A customer's own credentials read its apps' objects, playlists as stored (their slices are fetched alike).
      // Only Basic is a login attempt: a player that sends some other Authorization with its signed link is not failing one.
      const basic = /^Basic\s/i.test(req.headers.authorization ?? '');
      const login = basic ? access.login(req.headers.authorization, req.socket.remoteAddress) : undefined;
      if (login && !login.ok && login.refusal === 'throttled') {
        return reply
          .code(429)
          .header('retry-after', String(login.retryAfterSeconds))
          .header('cache-control', 'no-store')
          .send({ error: 'too_many_failed_logins', message: 'too many failed logins from this address or for this customer id; retry later' });
      }
      credentialed = login?.ok === true && (await access.ownedBy(login.holder.appIds, bucket!, key));
      if (!credentialed) {
        const q = req.query as { expires?: unknown; signature?: unknown };
        const check = checkObjectSignature(access.key, bucket!, key, q, access.nowSec());
        // Another customer's object answers as a missing one: neither its existence nor its owner shows.
        if (check !== 'ok' && login?.ok) return reply.code(404).header('cache-control', 'no-store').send({ error: 'not_found', message: 'no such object' });
        if (check !== 'ok') {
          const message =
            check === 'expired'
              ? 'this link has expired; ask the sessions API for a fresh one'
              : "objects are served only with a signed link from the sessions API or the customer's credentials";
          return reply.code(403).header('cache-control', 'no-store').send({ error: `signature_${check}`, message });
        }
        signedUntil = Number(q.expires);
      }
    }
    let size: number;
    let mtime: Date;
    try {
      const s = await stat(path);
      if (!s.isFile()) throw new Error('not a file');
      size = s.size;
      mtime = s.mtime;
    } catch {
      return reply.code(404).send({ error: 'not_found', message: 'no such object' });
    }
    reply
      .header('accept-ranges', 'bytes')
      .header('content-type', contentTypeFor(key))
      .header('last-modified', mtime.toUTCString())
      .header('access-control-allow-origin', '*')
      .header('access-control-expose-headers', 'content-length, content-range, accept-ranges')
      // Playlists grow while recording; segments never change. Credentialed answers only in the browser's own cache
      // (a shared cache would hand them to anyone); signed ones no longer than their signature holds.
      .header('cache-control', cacheControl(isRewrittenObject(key), credentialed, signedUntil, access.public ? 0 : access.nowSec()));
    if (!access.public) reply.header('vary', 'Authorization');
    if (signedUntil !== undefined && key.endsWith('.m3u8')) {
      // Its segments need their own signatures (signPlaylist); playlists are small, served whole.
      const text = signPlaylist(await readFile(path, 'utf8'), access.public ? Buffer.alloc(0) : access.key, bucket!, key, signedUntil);
      const body = Buffer.from(text);
      reply.header('content-length', body.length);
      return req.method === 'HEAD' ? reply.send() : reply.send(body);
    }
    const range = parseRange(req.headers.range, size);
    if (range === 'unsatisfiable') {
      return reply.code(416).header('content-range', `bytes */${size}`).send();
    }
    const head = req.method === 'HEAD';
    if (range) {
      reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${size}`).header('content-length', range.end - range.start + 1);
      return head ? reply.send() : reply.send(createReadStream(path, { start: range.start, end: range.end }));
    }
    reply.header('content-length', size);
    return head ? reply.send() : reply.send(createReadStream(path));
  };
  app.route({ method: ['GET', 'HEAD'], url: '/bucket/*', handler, exposeHeadRoute: false });
}

/** `Cache-Control` of an object: public (development), credentialed (private) or signed (until it expires). */
export function cacheControl(playlist: boolean, credentialed: boolean, signedUntil: number | undefined, nowSec: number): string {
  if (credentialed) return playlist ? 'private, no-cache' : `private, max-age=${SEGMENT_MAX_AGE_SECONDS}`;
  if (playlist) return 'no-cache';
  if (signedUntil === undefined) return `public, max-age=${SEGMENT_MAX_AGE_SECONDS}`;
  return `public, max-age=${Math.max(0, Math.min(SEGMENT_MAX_AGE_SECONDS, signedUntil - nowSec))}`;
}
