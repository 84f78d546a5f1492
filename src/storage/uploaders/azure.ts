import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import {
  BlobSASPermissions,
  BlobServiceClient,
  generateBlobSASQueryParameters,
  newPipeline,
  StorageSharedKeyCredential,
  type ContainerClient,
  type RequestPolicyFactory,
} from '@azure/storage-blob';
import { classifyError } from './classify.ts';
import { UploadError, type ObjectInfo, type PutRequest, type Uploader } from './types.ts';

export interface AzureUploaderOptions {
  /** Service URL including the account: `https://<account>.blob.core.windows.net` or `http://127.0.0.1:10000/<account>`. */
  readonly serviceUrl: string;
  readonly accountName: string;
  readonly accountKey: string;
  readonly container: string;
  readonly blockSize: number;
  readonly description: string;
  /** Name resolution of every connection (the outbound guard's, in production; src/net guardedLookup). */
  readonly lookup?: LookupFunction;
}

/** A pipeline step that sends every request through the given agent (the Azure SDK has no agent option). */
function agentPolicy(agents: { readonly http: http.Agent; readonly https: https.Agent }): RequestPolicyFactory {
  return {
    create: (next) => ({
      sendRequest: (request) => {
        request.agent = request.url.startsWith('https:') ? agents.https : agents.http;
        return next.sendRequest(request);
      },
    }),
  };
}

/** Vendor 5: account name and key from accessKey/secretKey, the bucket is the container. */
export function createAzureUploader(o: AzureUploaderOptions): Uploader {
  let container: ContainerClient | undefined;
  const agents = o.lookup
    ? { http: new http.Agent({ keepAlive: true, lookup: o.lookup }), https: new https.Agent({ keepAlive: true, lookup: o.lookup }) }
    : undefined;
  const secrets = [o.accountKey];
  const fail = (e: unknown, what: string): never => {
    throw classifyError(e, what, o.description, secrets);
  };
  // An invalid (non-base64) key makes the credential constructor throw: report it as a config error on use.
  const credential = (): StorageSharedKeyCredential => {
    try {
      return new StorageSharedKeyCredential(o.accountName, o.accountKey);
    } catch {
      throw classifyError({ code: 'InvalidAccessKey' }, 'signing', o.description, secrets);
    }
  };
  const client = (): ContainerClient => {
    if (!container) {
      const cred = credential();
      try {
        // One quick SDK retry absorbs a reset socket; longer outages are the spool's job (backoff on its clock).
        const pipeline = newPipeline(cred, {
          retryOptions: { maxTries: 2, retryDelayInMs: 100, maxRetryDelayInMs: 500, tryTimeoutInMs: 120_000 },
        });
        if (agents) pipeline.factories.push(agentPolicy(agents));
        const service = new BlobServiceClient(o.serviceUrl, pipeline);
        container = service.getContainerClient(o.container);
      } catch {
        throw new UploadError('config', `${o.description}: the account name does not form a valid Azure URL`, 'InvalidAccountName');
      }
    }
    return container;
  };
  return {
    kind: 'azure',
    description: o.description,
    async put(req: PutRequest) {
      try {
        const blob = client().getBlockBlobClient(req.key);
        const options = {
          blockSize: o.blockSize,
          concurrency: 4,
          blobHTTPHeaders: { blobContentType: req.contentType, ...(req.cacheControl ? { blobCacheControl: req.cacheControl } : {}) },
        };
        if ('file' in req.body) await blob.uploadFile(req.body.file, options);
        else if ('data' in req.body) await blob.uploadData(req.body.data, options);
        else await blob.uploadStream(req.body.stream, o.blockSize, 4, options);
      } catch (e) {
        fail(e, `upload of "${req.key}"`);
      }
    },
    async head(key) {
      try {
        const p = await client().getBlockBlobClient(key).getProperties();
        return { key, size: p.contentLength ?? 0, ...(p.contentType ? { contentType: p.contentType } : {}), ...(p.cacheControl ? { cacheControl: p.cacheControl } : {}) };
      } catch (e) {
        if ((e as { statusCode?: number }).statusCode === 404 && (e as { code?: string }).code !== 'ContainerNotFound') {
          return undefined;
        }
        return fail(e, `HEAD "${key}"`);
      }
    },
    async get(key) {
      try {
        return await client().getBlockBlobClient(key).downloadToBuffer();
      } catch (e) {
        if ((e as { statusCode?: number }).statusCode === 404 && (e as { code?: string }).code !== 'ContainerNotFound') {
          return undefined;
        }
        return fail(e, `GET "${key}"`);
      }
    },
    async list(prefix) {
      const out: ObjectInfo[] = [];
      try {
        for await (const b of client().listBlobsFlat(prefix ? { prefix } : {})) {
          out.push({ key: b.name, size: b.properties.contentLength ?? 0 });
        }
      } catch (e) {
        fail(e, 'list');
      }
      return out;
    },
    async delete(key) {
      try {
        await client().getBlockBlobClient(key).deleteIfExists();
      } catch (e) {
        fail(e, `delete "${key}"`);
      }
    },
    async readUrl(key, expiresAtMs) {
      // A service SAS for this one blob, read only, signed with the account key (no request sent).
      const sas = generateBlobSASQueryParameters(
        { containerName: o.container, blobName: key, permissions: BlobSASPermissions.parse('r'), expiresOn: new Date(expiresAtMs) },
        credential(),
      );
      return `${client().getBlockBlobClient(key).url}?${sas.toString()}`;
    },
    close() {
      agents?.http.destroy();
      agents?.https.destroy();
    },
  };
}
