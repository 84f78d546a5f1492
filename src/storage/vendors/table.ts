import { alibabaOss } from './alibaba.ts';
import { amazonS3 } from './amazon.ts';
import { azureBlob } from './azure.ts';
import { baiduBos } from './baidu.ts';
import { googleCloudStorage } from './google.ts';
import { huaweiObs } from './huawei.ts';
import { s3Compatible } from './s3-compatible.ts';
import { tencentCos } from './tencent.ts';
import type { StorageVendor, VendorSpec } from './types.ts';

/** Every vendor a storageConfig may name, by number. */
export const VENDORS: ReadonlyMap<StorageVendor, VendorSpec> = new Map(
  [amazonS3, alibabaOss, tencentCos, azureBlob, googleCloudStorage, huaweiObs, baiduBos, s3Compatible].map((v) => [
    v.vendor,
    v,
  ]),
);

export const STORAGE_VENDORS: readonly StorageVendor[] = Object.freeze([...VENDORS.keys()]);

export function isStorageVendor(n: unknown): n is StorageVendor {
  return typeof n === 'number' && VENDORS.has(n as StorageVendor);
}

export function vendorSpec(vendor: number): VendorSpec | undefined {
  return VENDORS.get(vendor as StorageVendor);
}
