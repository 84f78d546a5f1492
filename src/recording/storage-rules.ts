/** The start-time storage check: the storage region must lie in the acquire area (code 2 naming the region). */
import { checkStorageRegionInArea } from '../storage/index.ts';
import { fail } from './validation/schema.ts';
import type { Area, StorageConfig } from './validation/types.ts';

export function checkStorageRegion(storage: StorageConfig, area: Area | undefined, path: string): void {
  const problem = checkStorageRegionInArea(storage.vendor, storage.region, area);
  if (!problem) return;
  const field = `${path}${problem.field.slice('storageConfig'.length)}`;
  const rule = problem.reason.startsWith(`${problem.field} `) ? problem.reason.slice(problem.field.length + 1) : problem.reason;
  fail(field, rule);
}
