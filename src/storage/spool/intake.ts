import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, rename, rm, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Ids sort by enqueue time, then by a per-process counter, so the manifest keeps recording order. */
export function spoolFileId(now: number, counter: number): string {
  return `${now.toString(36).padStart(9, '0')}-${counter.toString(36).padStart(6, '0')}-${randomBytes(3).toString('hex')}`;
}

/** A sid as a directory name: only safe characters. */
export function spoolDirName(sid: string): string {
  return sid.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 128) || '_';
}

/**
 * Copies (or moves) a closed file into the spool. A move across file systems falls back to copy + unlink.
 * On failure nothing half-written is left behind, and the error is rethrown.
 */
export async function placeInSpool(localPath: string, spoolPath: string, move: boolean): Promise<void> {
  try {
    await mkdir(dirname(spoolPath), { recursive: true });
    if (!move) return await copyFile(localPath, spoolPath);
    try {
      await rename(localPath, spoolPath);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
      await copyFile(localPath, spoolPath);
      await unlink(localPath);
    }
  } catch (e) {
    await rm(spoolPath, { force: true });
    throw e;
  }
}
