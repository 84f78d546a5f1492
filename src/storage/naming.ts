import type { StorageConfig } from './storage-config.ts';

/** The object key of a recorded file: `fileNamePrefix` elements joined with "/", then the file name. */
export function objectKey(storage: Pick<StorageConfig, 'fileNamePrefix'>, fileName: string): string {
  const prefix = storage.fileNamePrefix?.join('/') ?? '';
  return prefix ? `${prefix}/${fileName}` : fileName;
}

/**
 * Whether an object key is safe to use both as a bucket key and below a local directory: relative, "/"-separated,
 * no empty, "." or ".." segment, no backslash or control characters.
 */
export function isSafeObjectKey(key: string): boolean {
  if (key.length === 0 || key.length > 1024) return false;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: a key with control characters is refused
  if (/[\\\u0000-\u001f\u007f]/.test(key)) return false;
  return key.split('/').every((seg) => seg !== '' && seg !== '.' && seg !== '..');
}

/** Segments, MP4s and images never change under their names: a cache may keep them this long. */
export const SEGMENT_MAX_AGE_SECONDS = 3600;

/**
 * Whether an object is rewritten under its name while a session records: its playlists (each slice appends) and its
 * speaker timeline (`…_speakers.json`, `…_speakers.vtt`).
 */
export function isRewrittenObject(key: string): boolean {
  return /\.m3u8$/i.test(key) || /_speakers\.(json|vtt)$/i.test(key);
}

/**
 * The `Cache-Control` stored with an object in the customer's bucket (S3, Azure), for a CDN in front of it: a
 * playlist grows while the session records, so every request revalidates it; the rest never changes.
 */
export function storedCacheControl(key: string): string {
  return isRewrittenObject(key) ? 'no-cache' : `max-age=${SEGMENT_MAX_AGE_SECONDS}, immutable`;
}

/** Content types of what recorders write; browsers need the right ones to play from the local bucket. */
const CONTENT_TYPES: Readonly<Record<string, string>> = Object.freeze({
  m3u8: 'application/vnd.apple.mpegurl',
  ts: 'video/mp2t',
  mp4: 'video/mp4',
  m4s: 'video/iso.segment',
  webm: 'video/webm',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  mp3: 'audio/mpeg',
  m4a: 'audio/mp4',
  aac: 'audio/aac',
  mpd: 'application/dash+xml',
  json: 'application/json',
  vtt: 'text/vtt; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
});

export function contentTypeFor(fileName: string): string {
  const ext = /\.([a-z0-9]+)$/i.exec(fileName)?.[1]?.toLowerCase();
  return (ext && CONTENT_TYPES[ext]) || 'application/octet-stream';
}
