import { basicLogin, credentialMatcher } from '../http/index.ts';
import type { ReeltimeModule, ServerContext } from '../server/module.ts';
import { registerBucketRoute } from './bucket-route.ts';
import { bucketOpenApi } from './openapi.ts';
import { registerStorageMetrics } from './metrics.ts';
import { sealingKey, unseal } from './seal.ts';
import { signObject, urlSigningKey } from './signed-url.ts';
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
}

export function createStorageModule(ctx: ServerContext): StorageModule {
  const { config } = ctx;
  const log = ctx.log.child({ component: 'storage' });
  // Only processes that record upload, so only they report the spool (docs/metrics.md).
  const meter = ctx.roles.has('recorder') ? registerStorageMetrics(ctx.metrics, () => spool, () => ctx.clock.now()) : undefined;
  const store = new SpoolStore(ctx.database.db);
  // Every process of a deployment shares the app certificate, so any of them can unseal what another stored.
  const storageKey = sealingKey(config.appCertificate);
  const spool: UploadSpool = new UploadSpool({
    meter,
    store,
    config: config.storage,
    clock: ctx.clock,
    log,
    // Every process of a deployment shares the app certificate, so any of them can unseal what another stored.
    sealKey: storageKey,
    // The same outbound guard as webhooks and page URLs, at connect time (the start-time check is the API's).
    outbound: { allowPrivate: config.notify.allowPrivateUrls },
  });
  let baseUrl = config.publicUrl;
  const urlKey = urlSigningKey(config.appCertificate);
  const nowSec = () => Math.floor(ctx.clock.now() / 1000);
  // The recording API's customers (the same Basic credentials, failures counted together) may read the objects of
  // their own apps without a signed link.
  const customer = credentialMatcher(config.recording.customers);
  const login = (header: string | undefined, address: string | undefined) => basicLogin(customer, ctx.logins, header, address);
  const ownedBy = async (appIds: readonly string[], bucket: string, key: string): Promise<boolean> => {
    for (const sealed of await store.objectStorages(key, appIds)) {
      const plain = unseal(sealed, storageKey);
      if (plain && (JSON.parse(plain) as { bucket?: unknown }).bucket === bucket) return true;
    }
    return false;
  };
  const localObjectUrl = (bucket: string, key: string) =>
    `${baseUrl}/bucket/${encodeURIComponent(bucket)}/${key.split('/').map(encodeURIComponent).join('/')}`;
  return {
    name: 'storage',
    openapi: bucketOpenApi(),
    register(app) {
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
    playbackUrl: (bucket, key) => {
      if (!config.storage.routeAllToLocal || !config.storage.serveBucket) return undefined;
      const url = localObjectUrl(bucket, key);
      if (config.storage.bucketPublic) return url;
      return `${url}?${signObject(urlKey, bucket, key, nowSec() + config.storage.signedUrlTtlSeconds)}`;
    },
  };
}
