/** The four acquire regions of the recording API. */
export type StorageArea = 'CN' | 'AP' | 'EU' | 'NA';

/** Vendors a storageConfig may name (0 Qiniu and 4 Kingsoft are retired and refused). */
export type StorageVendor = 1 | 2 | 3 | 5 | 6 | 7 | 8 | 11;

/** One region number of one vendor. */
export interface VendorRegion {
  readonly number: number;
  /** The recording API's label of the region, e.g. `US_EAST_1` (docs/storage.md, appendix: region numbers). */
  readonly label: string;
  /** The provider's own region id, used for request signing, e.g. `us-east-1`. */
  readonly id: string;
  /** Undefined for global storage (Azure, Google, S3-compatible): it matches every acquire region. */
  readonly area: StorageArea | undefined;
  /** The provider's public endpoint for this region (never contacted by tests). */
  readonly endpoint: string;
}

/** What reeltime knows about one vendor: which API speaks to it and which options apply. */
export interface VendorSpec {
  readonly vendor: StorageVendor;
  readonly name: string;
  readonly api: 's3' | 'azure';
  /** Bucket addressed as `<bucket>.<endpoint host>` (true) or `<endpoint>/<bucket>` (false). */
  readonly virtualHosted: boolean;
  readonly regions: ReadonlyMap<number, VendorRegion>;
  readonly supportsSts: boolean;
  readonly supportsSse: boolean;
  readonly supportsTag: boolean;
}

/** A region row: `[number, label, provider region id, area]`. */
export type RegionRow = readonly [number: number, label: string, id: string, area: StorageArea | undefined];

/** Options of a storageConfig that only some vendors accept. */
export type VendorOption = 'sts' | 'sse' | 'tag';

/** One vendor as data. Defaults: the S3 API, virtual-hosted buckets, none of the options. */
export interface VendorDefinition {
  readonly vendor: StorageVendor;
  readonly name: string;
  readonly api?: 's3' | 'azure';
  readonly virtualHosted?: boolean;
  readonly options?: readonly VendorOption[];
  /** The provider's public endpoint for a region id. */
  readonly endpoint: (regionId: string) => string;
  readonly regions: readonly RegionRow[];
}

/** The frozen VendorSpec of a definition, with its region map. */
export function defineVendor(d: VendorDefinition): VendorSpec {
  const options = new Set(d.options ?? []);
  const regions = new Map(
    d.regions.map(([number, label, id, area]) => [number, Object.freeze({ number, label, id, area, endpoint: d.endpoint(id) })]),
  );
  return Object.freeze({
    vendor: d.vendor,
    name: d.name,
    api: d.api ?? 's3',
    virtualHosted: d.virtualHosted ?? true,
    regions,
    supportsSts: options.has('sts'),
    supportsSse: options.has('sse'),
    supportsTag: options.has('tag'),
  });
}
