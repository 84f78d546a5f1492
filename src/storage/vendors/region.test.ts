import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { checkStorageRegionInArea, storageRegionArea, validateStorageRegion, vendorRegion } from './region.ts';
import { STORAGE_VENDORS, VENDORS } from './table.ts';

test('region areas follow the region table', () => {
  assert.equal(storageRegionArea(1, 0), 'NA');
  assert.equal(storageRegionArea(1, 7), 'EU');
  assert.equal(storageRegionArea(1, 15), 'CN');
  assert.equal(storageRegionArea(1, 8), 'AP');
  assert.equal(storageRegionArea(2, 0), 'CN');
  assert.equal(storageRegionArea(2, 7), 'AP');
  assert.equal(storageRegionArea(2, 16), 'EU');
  assert.equal(storageRegionArea(3, 1), 'CN');
  assert.equal(storageRegionArea(3, 10), 'AP');
  assert.equal(storageRegionArea(3, 16), 'NA');
  assert.equal(storageRegionArea(7, 1), 'CN');
  assert.equal(storageRegionArea(8, 5), 'AP');
  // Global vendors and unknown input.
  assert.equal(storageRegionArea(5, 0), undefined);
  assert.equal(storageRegionArea(6, 0), undefined);
  assert.equal(storageRegionArea(11, 0), undefined);
  assert.equal(storageRegionArea(1, 17), undefined);
  assert.equal(storageRegionArea(4, 0), undefined);
});

test('every vendor has its region count and real endpoints', () => {
  assert.deepEqual(STORAGE_VENDORS, [1, 2, 3, 5, 6, 7, 8, 11]);
  const counts = Object.fromEntries([...VENDORS].map(([v, s]) => [v, s.regions.size]));
  assert.deepEqual(counts, { 1: 24, 2: 28, 3: 20, 5: 1, 6: 1, 7: 16, 8: 8, 11: 1 });
  assert.equal(vendorRegion(1, 0)?.endpoint, 'https://s3.us-east-1.amazonaws.com');
  assert.equal(vendorRegion(1, 16)?.endpoint, 'https://s3.cn-northwest-1.amazonaws.com.cn');
  assert.equal(vendorRegion(2, 0)?.endpoint, 'https://oss-cn-hangzhou.aliyuncs.com');
  assert.equal(vendorRegion(3, 2)?.endpoint, 'https://cos.ap-shanghai.myqcloud.com');
  assert.equal(vendorRegion(6, 0)?.endpoint, 'https://storage.googleapis.com');
  assert.equal(vendorRegion(7, 1)?.endpoint, 'https://obs.cn-north-4.myhuaweicloud.com');
  assert.equal(vendorRegion(8, 3)?.endpoint, 'https://s3.gz.bcebos.com');
  for (const spec of VENDORS.values()) {
    for (const r of spec.regions.values()) {
      assert.ok(r.area === undefined || ['CN', 'AP', 'EU', 'NA'].includes(r.area), `${spec.vendor}/${r.number}`);
      if (spec.vendor !== 11) assert.match(r.endpoint, /^https:\/\/[a-z0-9.-]+$/);
    }
  }
});

test('validateStorageRegion names the field', () => {
  assert.equal(validateStorageRegion(1, 3), undefined);
  assert.equal(validateStorageRegion(5, 0), undefined);
  const v = validateStorageRegion(4, 0);
  assert.equal(v?.field, 'storageConfig.vendor');
  assert.match(v!.reason, /vendor 4 is not supported/);
  const r = validateStorageRegion(1, 23);
  assert.equal(r?.field, 'storageConfig.region');
  assert.match(r!.reason, /region 23 is not a region of vendor 1/);
  assert.match(validateStorageRegion(5, 1)!.reason, /allowed: 0$/);
});

test('checkStorageRegionInArea refuses a storage region outside the acquire region', () => {
  assert.equal(checkStorageRegionInArea(1, 0, 'NA'), undefined);
  assert.equal(checkStorageRegionInArea(1, 0, undefined), undefined);
  assert.equal(checkStorageRegionInArea(5, 0, 'CN'), undefined);
  const p = checkStorageRegionInArea(1, 7, 'NA');
  assert.equal(p?.field, 'storageConfig.region');
  assert.match(p!.reason, /EU_CENTRAL_1.*area EU.*region NA/);
});

test('the region table of docs/storage.md lists exactly the regions of the code', () => {
  const doc = readFileSync(new URL('../../../docs/storage.md', import.meta.url), 'utf8');
  const appendix = doc.slice(doc.indexOf('## Appendix: region numbers'));
  const documented = [...appendix.matchAll(/^\| (\d+) \| (\d+) \| `([^`]+)` \| `([^`]+)` \| (CN|AP|EU|NA|any) \|$/gm)].map((m) => m.slice(1).join(' '));
  const coded = [...VENDORS.values()].flatMap((spec) =>
    [...spec.regions.values()].map((r) => `${spec.vendor} ${r.number} ${r.label} ${r.id} ${r.area ?? 'any'}`),
  );
  assert.deepEqual(documented, coded);
});
