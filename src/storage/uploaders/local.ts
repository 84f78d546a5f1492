import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { copyFile, mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { contentTypeFor, isSafeObjectKey } from '../naming.ts';
import { UploadError, type ObjectInfo, type PutRequest, type Uploader } from './types.ts';

/** Resolves `<root>/<bucket>/<key>`, or undefined when bucket or key would leave the root. */
export function localObjectPath(root: string, bucket: string, key: string): string | undefined {
  if (!isSafeObjectKey(bucket) || bucket.includes('/') || !isSafeObjectKey(key)) return undefined;
  return join(root, bucket, ...key.split('/'));
}

/** The embedded bucket: a folder per bucket under the data dir, written atomically (temp file, then rename). */
export function createLocalUploader(root: string, bucket: string): Uploader {
  const bucketDir = join(root, bucket);
  const pathOf = (key: string): string => {
    const p = localObjectPath(root, bucket, key);
    if (!p) throw new UploadError('config', `object key "${key}" is not a safe relative path`, 'InvalidKey');
    return p;
  };
  return {
    kind: 'local',
    description: `local bucket "${bucket}"`,
    async put(req: PutRequest) {
      const target = pathOf(req.key);
      const tmp = `${target}.part-${randomBytes(4).toString('hex')}`;
      try {
        await mkdir(dirname(target), { recursive: true });
        if ('file' in req.body) await copyFile(req.body.file, tmp);
        else if ('data' in req.body) await writeFile(tmp, req.body.data);
        else await pipeline(req.body.stream, createWriteStream(tmp));
        await rename(tmp, target);
      } catch (e) {
        await rm(tmp, { force: true });
        throw new UploadError('transient', `writing to the local bucket failed: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      }
    },
    async head(key) {
      try {
        const s = await stat(pathOf(key));
        return s.isFile() ? { key, size: s.size, contentType: contentTypeFor(key) } : undefined;
      } catch {
        return undefined;
      }
    },
    async get(key) {
      try {
        return await readFile(pathOf(key));
      } catch {
        return undefined;
      }
    },
    // The storage module signs links to the local bucket (it serves it).
    readUrl: async () => undefined,
    async list(prefix = '') {
      const out: ObjectInfo[] = [];
      const walk = async (dir: string): Promise<void> => {
        let entries;
        try {
          entries = await readdir(dir, { withFileTypes: true });
        } catch {
          return;
        }
        for (const e of entries) {
          const p = join(dir, e.name);
          if (e.isDirectory()) await walk(p);
          else if (e.isFile() && !/\.part-[0-9a-f]{8}$/.test(e.name)) {
            const key = relative(bucketDir, p).split(sep).join('/');
            if (key.startsWith(prefix)) out.push({ key, size: (await stat(p)).size });
          }
        }
      };
      await walk(bucketDir);
      return out.sort((a, b) => a.key.localeCompare(b.key));
    },
    async delete(key) {
      await rm(pathOf(key), { force: true });
    },
    close() {},
  };
}
