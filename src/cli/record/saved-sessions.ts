/**
 * Sessions started by `reeltime record start`, kept in `<dataDir>/record-sessions.json` so `query`, `update`,
 * `stop` and `watch` need no identifiers (the last one by default, `--sid` for another).
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { RecordingMode } from '@reeltime/client';

export interface SavedSession {
  readonly server: string;
  readonly appId: string;
  readonly cname: string;
  readonly uid: string;
  readonly mode: RecordingMode;
  readonly resourceId: string;
  readonly sid: string;
  readonly bucket: string;
  /** Unix ms. */
  readonly startedAt: number;
}

const MAX_KEPT = 50;

export const savedSessionsPath = (dataDir: string): string => join(dataDir, 'record-sessions.json');

export function readSavedSessions(dataDir: string): SavedSession[] {
  const file = savedSessionsPath(dataDir);
  if (!existsSync(file)) return [];
  try {
    const v = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return Array.isArray(v) ? (v as SavedSession[]) : [];
  } catch {
    return [];
  }
}

/** Adds a session (newest last), keeping the latest MAX_KEPT; written atomically. */
export function saveSession(dataDir: string, s: SavedSession): void {
  const all = [...readSavedSessions(dataDir).filter((x) => x.sid !== s.sid), s].slice(-MAX_KEPT);
  const file = savedSessionsPath(dataDir);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(`${file}.tmp`, JSON.stringify(all, null, 2) + '\n', { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}

/** The session with this sid, or the newest one. */
export function findSavedSession(dataDir: string, sid: string | undefined): SavedSession | undefined {
  const all = readSavedSessions(dataDir);
  return sid === undefined ? all.at(-1) : all.find((s) => s.sid === sid);
}
