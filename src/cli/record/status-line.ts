/** What `reeltime record` prints about a session: pure, so the wording tests without a server. */
import type { QueryResponse, StopResponse } from '@reeltime/client';
import { RECORDING_STATUS } from '../../recording/index.ts';

/** The service status values (docs/recording-api.md, lifecycle), as the CLI words them. */
export const STATUS_NAMES: Readonly<Record<number, string>> = Object.freeze({
  [RECORDING_STATUS.notStarted]: 'not started',
  [RECORDING_STATUS.initialized]: 'initialized',
  [RECORDING_STATUS.recorderStarting]: 'recorder starting',
  [RECORDING_STATUS.uploaderReady]: 'uploader ready',
  [RECORDING_STATUS.recorderReady]: 'recorder ready',
  [RECORDING_STATUS.firstFileUploaded]: 'recording',
  [RECORDING_STATUS.recordingStopped]: 'stopping',
  [RECORDING_STATUS.componentsStopped]: 'service stopped',
  [RECORDING_STATUS.readyToExit]: 'ready to exit',
  [RECORDING_STATUS.exitedAbnormally]: 'exited abnormally',
});

/** Started and recording: recorder ready or a first file uploaded (the integration advice's reading of query). */
export const isRecording = (status: number): boolean => status === RECORDING_STATUS.recorderReady || status === RECORDING_STATUS.firstFileUploaded;

/** Every file a query or stop answer names (object keys in the bucket). */
export function fileNames(serverResponse: QueryResponse['serverResponse'] | StopResponse['serverResponse']): string[] {
  if ('fileList' in serverResponse) {
    return typeof serverResponse.fileList === 'string' ? (serverResponse.fileList ? [serverResponse.fileList] : []) : serverResponse.fileList.map((f) => f.fileName);
  }
  if ('extensionServiceState' in serverResponse) {
    const out: string[] = [];
    for (const s of serverResponse.extensionServiceState) {
      if (s.serviceName === 'web_recorder_service') out.push(...s.payload.fileList.map((f) => f.filename));
    }
    return out;
  }
  return [];
}

const two = (n: number) => String(n).padStart(2, '0');

/** `1:02:03` or `02:03`. */
export function elapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(s / 3600);
  return h > 0 ? `${h}:${two(Math.floor(s / 60) % 60)}:${two(s % 60)}` : `${two(Math.floor(s / 60))}:${two(s % 60)}`;
}

/** `999 B`, `12.3 kB`, `4.6 MB`, `1.2 GB` (powers of 1000, as file managers show sizes). */
export function bytes(n: number): string {
  if (n < 1000) return `${n} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let v = n / 1000;
  let i = 0;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i += 1;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

export interface StatusView {
  readonly cname: string;
  readonly sid: string;
  readonly mode: string;
  readonly status: number;
  /** Files the recorder lists (playlists, MP4s). */
  readonly files: number;
  readonly elapsedMs: number;
  /** Objects in the bucket and their bytes (the sessions API's `uploads`), when the server has that API. */
  readonly uploaded?: { readonly files: number; readonly bytes: number; readonly pendingFiles: number } | undefined;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** One line: `recording (5)  00:42  2 files  14 uploaded, 3.1 MB  individual "room" sid 3f…`. */
export function statusLine(v: StatusView): string {
  const name = STATUS_NAMES[v.status] ?? 'unknown';
  const up = v.uploaded
    ? `  ${v.uploaded.files} uploaded, ${bytes(v.uploaded.bytes)}${v.uploaded.pendingFiles ? ` (${v.uploaded.pendingFiles} waiting)` : ''}`
    : '';
  return `${name} (${v.status})  ${elapsed(v.elapsedMs)}  ${plural(v.files, 'file')}${up}  ${v.mode} "${v.cname}" sid ${v.sid}`;
}

/** Where a file of the local bucket is served (docs/storage.md, the local bucket). */
export function bucketUrl(server: string, bucket: string, fileName: string): string {
  return `${server.replace(/\/+$/, '')}/bucket/${encodeURIComponent(bucket)}/${fileName.split('/').map(encodeURIComponent).join('/')}`;
}
