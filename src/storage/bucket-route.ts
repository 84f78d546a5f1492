import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { contentTypeFor } from './naming.ts';
import { parseRange } from './range.ts';
import { checkObjectSignature, signPlaylist } from './signed-url.ts';
import { localObjectPath } from './uploaders/index.ts';

/**
 * Who may read: anyone (development), or holders of a signed, unexpired link or of a customer's credentials
 * (docs/storage.md).
 */
export type BucketAccess =
  | { readonly public: true }
  | {
      readonly public: false;
      readonly key: Buffer;
      readonly nowSec: () => number;
      /** Whether an `Authorization` header carries a customer's credentials (HTTP Basic, as the recording API). */
      readonly isCustomer: (authorization: string | undefined) => boolean;
    };

/**
 * Serves the local bucket read-only at /bucket/<bucket>/<key> so recordings play in a browser: range
 * requests, content types by extension, CORS for players on other origins, nothing outside the bucket root.
 */
export function registerBucketRoute(app: FastifyInstance, root: string, access: BucketAccess = { public: true }): void {
  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    // The raw path, decoded once per segment (the router's decoded wildcard would be decoded twice here).
    const rest = req.url.split('?')[0]!.slice('/bucket/'.length);
    let parts: string[];
    try {
      parts = rest.split('/').map((p) => decodeURIComponent(p));
    } catch {
      return reply.code(400).send({ error: 'bad_path', message: 'the object path is not valid URL encoding' });
    }
    const [bucket, ...keyParts] = parts;
    const key = keyParts.join('/');
    const path = bucket && key ? localObjectPath(root, bucket, key) : undefined;
    if (!path) return reply.code(404).send({ error: 'not_found', message: 'no such object' });
    let signedUntil: number | undefined;
    // A customer's own credentials read everything, playlists as stored (their slices are fetched the same way).
    if (!access.public && !access.isCustomer(req.headers.authorization)) {
      const q = req.query as { expires?: unknown; signature?: unknown };
      const check = checkObjectSignature(access.key, bucket!, key, q, access.nowSec());
      if (check !== 'ok') {
        const message =
          check === 'expired'
            ? 'this link has expired; ask the sessions API for a fresh one'
            : "objects are served only with a signed link from the sessions API or the customer's credentials";
        return reply.code(403).header('cache-control', 'no-store').send({ error: `signature_${check}`, message });
      }
      signedUntil = Number(q.expires);
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
      // Playlists grow while recording; segments never change.
      .header('cache-control', key.endsWith('.m3u8') ? 'no-cache' : 'public, max-age=3600');
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
