import { createReadStream } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { stat } from 'node:fs/promises';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
  S3ServiceException,
  type ServerSideEncryption,
  type Tag,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { classifyError } from './classify.ts';
import { UploadError, type ObjectInfo, type PutRequest, type Uploader } from './types.ts';

export interface S3UploaderOptions {
  readonly endpoint: string;
  /** Signing region. */
  readonly region: string;
  readonly forcePathStyle: boolean;
  readonly bucket: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
  /** UNIX ms after which the session token is refused locally (a config error, no request sent). */
  readonly sessionTokenExpiresAt?: number;
  readonly sse?: 'kms' | 'aes256';
  readonly tags?: readonly Tag[];
  readonly partSize: number;
  /** For the expiry check. */
  readonly now: () => number;
  /** Text for messages, e.g. `vendor 1 region 0 bucket "b"`. */
  readonly description: string;
  /** Name resolution of every connection (the outbound guard's, in production; src/net guardedLookup). */
  readonly lookup?: LookupFunction;
}

const SSE: Record<'kms' | 'aes256', ServerSideEncryption> = { kms: 'aws:kms', aes256: 'AES256' };

/** `extensionParams.tag` as S3 tags: `k=v&k2=v2` (the x-amz-tagging form) or a bare word (a key, empty value). */
export function parseTag(tag: string): Tag[] {
  if (!tag.includes('=')) return [{ Key: tag, Value: '' }];
  return [...new URLSearchParams(tag)].map(([Key, Value]) => ({ Key, Value }));
}

/** Uploads over the S3 API: Amazon S3 and every vendor with an S3-compatible endpoint. */
export function createS3Uploader(o: S3UploaderOptions): Uploader {
  const client = new S3Client({
    endpoint: o.endpoint,
    region: o.region,
    forcePathStyle: o.forcePathStyle,
    credentials: {
      accessKeyId: o.accessKeyId,
      secretAccessKey: o.secretAccessKey,
      ...(o.sessionToken ? { sessionToken: o.sessionToken } : {}),
    },
    // One quick SDK retry absorbs a reset keep-alive socket or a single 503; anything longer is the spool's job
    // (its backoff runs on the injected clock and every failure is reported).
    maxAttempts: 2,
    // Flexible checksums (aws-chunked trailers) are not understood by most S3-compatible servers.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: {
      connectionTimeout: 10_000,
      requestTimeout: 120_000,
      // The SDK's own agents, plus the guarded lookup when there is one.
      ...(o.lookup
        ? {
            httpAgent: new http.Agent({ keepAlive: true, maxSockets: 50, lookup: o.lookup }),
            httpsAgent: new https.Agent({ keepAlive: true, maxSockets: 50, lookup: o.lookup }),
          }
        : {}),
    },
  });
  const secrets = [o.accessKeyId, o.secretAccessKey, o.sessionToken];
  const fail = (e: unknown, what: string): never => {
    throw classifyError(e, what, o.description, secrets);
  };
  const checkToken = () => {
    if (o.sessionTokenExpiresAt !== undefined && o.now() >= o.sessionTokenExpiresAt) {
      throw new UploadError(
        'config',
        `${o.description}: stsToken expired at ${new Date(o.sessionTokenExpiresAt).toISOString()}; send a new one with update`,
        'ExpiredToken',
      );
    }
  };
  return {
    kind: 's3',
    description: o.description,
    async put(req: PutRequest) {
      checkToken();
      try {
        let Body;
        let ContentLength: number | undefined;
        if ('file' in req.body) {
          ContentLength = (await stat(req.body.file)).size;
          Body = createReadStream(req.body.file);
        } else if ('data' in req.body) {
          Body = req.body.data;
          ContentLength = req.body.data.byteLength;
        } else {
          Body = req.body.stream;
          ContentLength = req.body.size;
        }
        const upload = new Upload({
          client,
          partSize: o.partSize,
          queueSize: 4,
          leavePartsOnError: false,
          ...(o.tags?.length ? { tags: [...o.tags] } : {}),
          params: {
            Bucket: o.bucket,
            Key: req.key,
            Body,
            ContentType: req.contentType,
            ...(req.cacheControl ? { CacheControl: req.cacheControl } : {}),
            ...(ContentLength !== undefined ? { ContentLength } : {}),
            ...(o.sse ? { ServerSideEncryption: SSE[o.sse] } : {}),
          },
        });
        await upload.done();
      } catch (e) {
        fail(e, `upload of "${req.key}"`);
      }
    },
    async head(key) {
      try {
        const r = await client.send(new HeadObjectCommand({ Bucket: o.bucket, Key: key }));
        return { key, size: r.ContentLength ?? 0, ...(r.ContentType ? { contentType: r.ContentType } : {}), ...(r.CacheControl ? { cacheControl: r.CacheControl } : {}) };
      } catch (e) {
        if (e instanceof S3ServiceException && e.$metadata.httpStatusCode === 404 && e.name !== 'NoSuchBucket') {
          return undefined;
        }
        return fail(e, `HEAD "${key}"`);
      }
    },
    async get(key) {
      try {
        const r = await client.send(new GetObjectCommand({ Bucket: o.bucket, Key: key }));
        return Buffer.from(await r.Body!.transformToByteArray());
      } catch (e) {
        if (e instanceof S3ServiceException && e.name === 'NoSuchKey') return undefined;
        return fail(e, `GET "${key}"`);
      }
    },
    async list(prefix) {
      const out: ObjectInfo[] = [];
      let token: string | undefined;
      try {
        do {
          const r = await client.send(
            new ListObjectsV2Command({ Bucket: o.bucket, Prefix: prefix, ContinuationToken: token }),
          );
          for (const c of r.Contents ?? []) if (c.Key) out.push({ key: c.Key, size: c.Size ?? 0 });
          token = r.IsTruncated ? r.NextContinuationToken : undefined;
        } while (token);
      } catch (e) {
        fail(e, 'list');
      }
      return out;
    },
    async delete(key) {
      try {
        await client.send(new DeleteObjectCommand({ Bucket: o.bucket, Key: key }));
      } catch (e) {
        fail(e, `delete "${key}"`);
      }
    },
    async readUrl(key, expiresAtMs) {
      checkToken();
      // SigV4 query signing allows 1 s to 7 days.
      const expiresIn = Math.min(7 * 24 * 3600, Math.max(1, Math.floor((expiresAtMs - o.now()) / 1000)));
      try {
        return await getSignedUrl(client, new GetObjectCommand({ Bucket: o.bucket, Key: key }), { expiresIn });
      } catch (e) {
        return fail(e, `signing a link to "${key}"`);
      }
    },
    close() {
      client.destroy();
    },
  };
}
