/**
 * Watch links: a session's HLS playlists played from the customer's own bucket (S3 and S3-compatible stores, Azure)
 * while it records and after (docs/storage.md, "Watch links"). A presigned link to a playlist alone does not play
 * from a private bucket: a player resolves the slices' names against it and drops its query. So the sessions API
 * links each playlist to /watch/<appId>/<bucket>/<key> here, signed like the local bucket's links; this route reads
 * the playlist from the store as it is now and answers it with each slice's name replaced by a presigned link to
 * that slice (an Azure SAS), valid as long as the watch link. The slices themselves go from the store to the player.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { decodedPathAfter } from './bucket-route.ts';
import { checkObjectSignature, playlistTargets, rewritePlaylist, signObject } from './signed-url.ts';
import type { StorageConfig } from './storage-config.ts';
import { UploadError, type Uploader } from './uploaders/index.ts';

export interface WatchAccess {
  readonly key: Buffer;
  readonly nowSec: () => number;
  /** The storage a session of `appId` wrote `key` to, in `bucket` (the spool's manifest); undefined if none did. */
  readonly storageOf: (appId: string, bucket: string, key: string) => Promise<StorageConfig | undefined>;
  /** An uploader of that storage (through the outbound guard), closed after each request. */
  readonly uploaderOf: (storage: StorageConfig) => Uploader;
}

const scope = (appId: string, bucket: string) => `watch/${appId}/${bucket}`;

/** The path and query of a watch link to the playlist `key` (a URL path below the server's base URL). */
export function watchPath(signingKey: Buffer, appId: string, bucket: string, key: string, expires: number): string {
  const path = [appId, bucket, ...key.split('/')].map(encodeURIComponent).join('/');
  return `/watch/${path}?${signObject(signingKey, scope(appId, bucket), key, expires)}`;
}

const notFound = (reply: FastifyReply) => reply.code(404).header('cache-control', 'no-store').send({ error: 'not_found', message: 'no such playlist' });

export function registerWatchRoute(app: FastifyInstance, access: WatchAccess): void {
  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    const parts = decodedPathAfter(req.url, '/watch/');
    if (!parts) return reply.code(400).send({ error: 'bad_path', message: 'the playlist path is not valid URL encoding' });
    const [appId, bucket, ...keyParts] = parts;
    const key = keyParts.join('/');
    if (!appId || !bucket || !key.endsWith('.m3u8')) return notFound(reply);
    const q = req.query as { expires?: unknown; signature?: unknown };
    const check = checkObjectSignature(access.key, scope(appId, bucket), key, q, access.nowSec());
    if (check !== 'ok') {
      const message = check === 'expired' ? 'this link has expired; ask the sessions API for a fresh one' : 'playlists are served only with a signed link from the sessions API';
      return reply.code(403).header('cache-control', 'no-store').send({ error: `signature_${check}`, message });
    }
    const storage = await access.storageOf(appId, bucket, key);
    if (!storage) return notFound(reply);
    const expiresAtMs = Number(q.expires) * 1000;
    const uploader = access.uploaderOf(storage);
    let body: string;
    try {
      const stored = await uploader.get(key);
      if (!stored) return notFound(reply);
      const text = stored.toString('utf8');
      const links = new Map<string, string>();
      for (const target of playlistTargets(text, key)) {
        const url = await uploader.readUrl(target, expiresAtMs);
        if (url) links.set(target, url);
      }
      body = rewritePlaylist(text, key, (target) => links.get(target));
    } catch (e) {
      // UploadError messages name the store, never its credentials.
      const message = e instanceof UploadError ? e.message : 'the storage could not be read';
      return reply.code(502).header('cache-control', 'no-store').send({ error: 'storage_unavailable', message });
    } finally {
      uploader.close();
    }
    return reply
      .header('content-type', 'application/vnd.apple.mpegurl')
      // It grows while the session records: players ask again, and get fresh slice links each time.
      .header('cache-control', 'no-cache')
      .header('access-control-allow-origin', '*')
      .send(body);
  };
  app.route({ method: 'GET', url: '/watch/*', handler });
}
