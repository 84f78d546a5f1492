import type { StorageSettings } from '../config.ts';

/** Storage settings for the uploader tests (nothing on disk is touched through them): `over` replaces fields. */
export const testStorageSettings = (over: Partial<StorageSettings> = {}): StorageSettings => ({
  routeAllToLocal: false,
  endpoints: {},
  bucketDir: '/data/bucket',
  serveBucket: true,
  bucketPublic: true,
  signedUrlTtlSeconds: 3600,
  spoolDir: '/data/spool',
  spoolMaxBytes: 1 << 30,
  concurrency: 2,
  retryBaseMs: 1000,
  retryMaxMs: 30_000,
  partSizeBytes: 5 << 20,
  leaseMs: 60_000,
  ...over,
});
