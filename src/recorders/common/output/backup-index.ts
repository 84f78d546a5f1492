/** The `bak<n>_` generation of a recorder run after a restart (docs/recording-individual.md, "Restarts"). */
import type { RecordedFile } from '../../../recording/dispatch/index.ts';

/** Next `bak<n>_` index after a restart: one more than any already used. */
export function nextBackupIndex(previous: readonly RecordedFile[]): number {
  let max = -1;
  for (const f of previous) {
    const base = f.fileName.split('/').pop() ?? '';
    const m = /^bak(\d+)_/.exec(base);
    if (m) max = Math.max(max, Number(m[1]));
  }
  return max + 1;
}
