import { vendorSpec } from './table.ts';
import type { StorageArea, VendorRegion } from './types.ts';

/** A storageConfig problem a request handler answers with a 4xx; `field` names the offending field. */
export interface StorageConfigProblem {
  readonly field: string;
  readonly reason: string;
}

export function vendorRegion(vendor: number, region: number): VendorRegion | undefined {
  return vendorSpec(vendor)?.regions.get(region);
}

/**
 * The acquire area a storage region belongs to; undefined for an unknown vendor or region, and for the
 * global vendors (5 Azure, 6 Google, 11 S3-compatible) whose region 0 matches every area.
 */
export function storageRegionArea(vendor: number, region: number): StorageArea | undefined {
  return vendorRegion(vendor, region)?.area;
}

/** Checks that `vendor` is supported and `region` is one of its region numbers. */
export function validateStorageRegion(vendor: number, region: number): StorageConfigProblem | undefined {
  const spec = vendorSpec(vendor);
  if (!spec) {
    return {
      field: 'storageConfig.vendor',
      reason: `storageConfig.vendor ${vendor} is not supported; use 1, 2, 3, 5, 6, 7, 8 or 11`,
    };
  }
  if (!spec.regions.has(region)) {
    const allowed = [...spec.regions.keys()];
    const list = allowed.length === 1 ? `${allowed[0]}` : `${allowed[0]}..${allowed[allowed.length - 1]}`;
    return {
      field: 'storageConfig.region',
      reason: `storageConfig.region ${region} is not a region of vendor ${vendor} (${spec.name}); allowed: ${list}${
        allowed.length > 1 && allowed.length !== allowed[allowed.length - 1]! - allowed[0]! + 1 ? ' (with gaps)' : ''
      }`,
    };
  }
  return undefined;
}

/**
 * The start-time check: the storage region must lie in the acquire region when one was given.
 * Global storage (undefined area) is accepted everywhere.
 */
export function checkStorageRegionInArea(
  vendor: number,
  region: number,
  acquireArea: StorageArea | undefined,
): StorageConfigProblem | undefined {
  const invalid = validateStorageRegion(vendor, region);
  if (invalid) return invalid;
  const area = storageRegionArea(vendor, region);
  if (!acquireArea || !area || area === acquireArea) return undefined;
  const label = vendorRegion(vendor, region)!.label;
  return {
    field: 'storageConfig.region',
    reason: `storageConfig.region ${region} (${label}) is in area ${area}, but the resource was acquired for region ${acquireArea}`,
  };
}
