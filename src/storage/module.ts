import { basicLogin, credentialMatcher } from '../http/index.ts';
import type { ReeltimeModule, ServerContext } from '../server/module.ts';
import { registerBucketRoute } from './bucket-route.ts';
import { bucketOpenApi } from './openapi.ts';
import { registerStorageMetrics } from './metrics.ts';
import { sealingKey, unseal } from './seal.ts';
import { signObject, urlSigningKey } from './signed-url.ts';
import { describeStorage, type StorageConfig } from './storage-config.ts';
import { createUploader } from './uploaders/index.ts';
import { registerWatchRoute, watchPath } from './watch-route.ts';
import { SpoolStore, UploadSpool, type OpenSessionInput, type StorageEventListener, type UploadingStatus, type UploadSession, type UploadTotals } from './spool/index.ts';

export interface StorageModule extends ReeltimeModule {
  /** Opens (or re-opens, e.g. after a restart) the upload session of a recording; persisted with its storage. */
  openSession(input: OpenSessionInput): Promise<UploadSession>;
  /** An upload session opened earlier by this or a previous process. */
  session(sid: string): Promise<UploadSession | undefined>;
  /** `uploaded` when nothing of the session waits in the spool, `backuped` otherwise, `unknown` for unknown sids. */
  uploadingStatus(sid: string): Promise<UploadingStatus>;
  /** Files and bytes a session has in the bucket and still in a spool (the sessions API's `uploads`). */
  uploadTotals(sid: string): Promise<UploadTotals>;
  /** Events of every session, including ones resumed from the spool after a restart. */
  onEvent(listener: StorageEventListener): () => void;
  /** URL of an object in the local bucket (served by this process), for playback links. */
  localObjectUrl(bucket: string, key: string): string;
  /**
   * A URL a browser can play an object of a recording from: only when recordings land in the local bucket and this
   * server serves it (undefined otherwise).
   */
  playbackUrl(bucket: string, key: string): string | undefined;
  /**
   * Links a browser can play a session's objects from, by key: signed links to the local bucket as `playbackUrl`
   * gives them; for the customer's own store, watch links for playlists (watch-route.ts) and the store's own links
   * for other files (an S3 presigned GET, an Azure SAS), all valid for `signedUrlTtlSeconds` and made with no
   * request sent. Keys without a link are left out.
   */
  playbackUrls(appId: string, storage: StorageConfig, keys: readonly string[]): Promise<ReadonlyMap<string, string>>;
}

export function createStorageModule(ctx: ServerContext): StorageModule {
  const { config } = ctx;
  const log = ctx.log.child({ component: 'storage' });
  // Only processes that record upload, so only they report the spool (docs/metrics.md).
  const meter = ctx.roles.has('recorder') ? registerStorageMetrics(ctx.metrics, () => spool, () => ctx.clock.now()) : undefined;
  const store = new SpoolStore(ctx.database.db);
  // Every process of a deployment shares the app certificate, so any of them can unseal what another stored.
  const storageKey = sealingKey(config.appCertificate);
  // The same outbound guard as webhooks and page URLs, at connect time (the start-time check is the API's): for the
  // uploads and for the playlists watch links read.
  const outbound = { allowPrivate: config.notify.allowPrivateUrls };
  const spool: UploadSpool = new UploadSpool({
    meter,
    store,
    config: config.storage,
    clock: ctx.clock,
    log,
    // Every process of a deployment shares the app certificate, so any of them can unseal what another stored.
    sealKey: storageKey,
    outbound,
  });
  let baseUrl = config.publicUrl;
  const urlKey = urlSigningKey(config.appCertificate);
  const nowSec = () => Math.floor(ctx.clock.now() / 1000);
  // The recording API's customers (the same Basic credentials, failures counted together) may read the objects of
  // their own apps without a signed link.
  const customer = credentialMatcher(config.recording.customers);
  const login = (header: string | undefined, address: string | undefined) => basicLogin(customer, ctx.logins, header, address);
  /** The storage a session of one of `appIds` wrote `key` to in `bucket` (the spool's manifest), if one did. */
  const storageOf = async (appIds: readonly string[], bucket: string, key: string): Promise<StorageConfig | undefined> => {
    for (const sealed of await store.objectStorages(key, appIds)) {
      const plain = unseal(sealed, storageKey);
      const storage = plain ? (JSON.parse(plain) as StorageConfig) : undefined;
      if (storage?.bucket === bucket) return storage;
    }
    return undefined;
  };
  const ownedBy = async (appIds: readonly string[], bucket: string, key: string): Promise<boolean> => (await storageOf(appIds, bucket, key)) !== undefined;
  const localObjectUrl = (bucket: string, key: string) =>
    `${baseUrl}/bucket/${encodeURIComponent(bucket)}/${key.split('/').map(encodeURIComponent).join('/')}`;
  const playbackUrl = (bucket: string, key: string): string | undefined => {
    if (!config.storage.routeAllToLocal || !config.storage.serveBucket) return undefined;
    const url = localObjectUrl(bucket, key);
    if (config.storage.bucketPublic) return url;
    return `${url}?${signObject(urlKey, bucket, key, nowSec() + config.storage.signedUrlTtlSeconds)}`;
  };
  return {
    name: 'storage',
    openapi: bucketOpenApi(),
    register(app) {
      // Recordings in the customers' own stores: their playlists play through watch links (watch-route.ts), which
      // the sessions API hands out only for those (registered whatever the routing: a link of another process).
      registerWatchRoute(app, {
        key: urlKey,
        nowSec,
        storageOf: (appId, bucket, key) => storageOf([appId], bucket, key),
        uploaderOf: (storage) => createUploader(storage, config.storage, () => ctx.clock.now(), outbound),
      });
      if (!config.storage.serveBucket) return;
      registerBucketRoute(
        app,
        config.storage.bucketDir,
        config.storage.bucketPublic ? { public: true } : { public: false, key: urlKey, nowSec, login, ownedBy },
      );
    },
    async start(url) {
      baseUrl = url;
      // Only processes that record (or run everything) upload; an API-only process never touches the spool.
      if (ctx.roles.has('recorder')) await spool.start();
    },
    close: () => spool.close(),
    openSession: (input) => spool.openSession(input),
    session: (sid) => spool.session(sid),
    uploadingStatus: (sid) => spool.uploadingStatus(sid),
    uploadTotals: (sid) => spool.uploadTotals(sid),
    onEvent: (listener) => spool.onEvent(listener),
    localObjectUrl,
    playbackUrl,
    async playbackUrls(appId, storage, keys) {
      const urls = new Map<string, string>();
      if (keys.length === 0) return urls;
      if (config.storage.routeAllToLocal) {
        for (const key of keys) {
          const url = playbackUrl(storage.bucket, key);
          if (url) urls.set(key, url);
        }
        return urls;
      }
      // No outbound guard: signing sends nothing (the uploads that made these objects went through it).
      const uploader = createUploader(storage, config.storage, () => ctx.clock.now());
      try {
        const expires = nowSec() + config.storage.signedUrlTtlSeconds;
        for (const key of keys) {
          // A playlist through a watch link (its slices need links of their own); any other file straight from the store.
          const url = key.endsWith('.m3u8') ? `${baseUrl}${watchPath(urlKey, appId, storage.bucket, key, expires)}` : await uploader.readUrl(key, expires * 1000);
          if (url) urls.set(key, url);
        }
      } catch (e) {
        // A session whose credentials no longer sign (an expired STS token): its files are listed without links.
        log.debug({ err: e instanceof Error ? e.message : String(e), storage: describeStorage(storage) }, 'no playback links');
      } finally {
        uploader.close();
      }
      return urls;
    },
  };
}
