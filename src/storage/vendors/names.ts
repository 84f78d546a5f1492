/**
 * The vendors' own naming rules for buckets and Azure storage accounts, checked at `start` so a name the vendor
 * would refuse is a 400 naming the rule instead of an upload error with files stuck in the spool. Each rule is the
 * vendor's documented one (docs/storage.md, "Bucket names"); where a vendor's documents disagree, the lenient one.
 * Returns the rule the name breaks (phrased after the field name), or undefined.
 */
import { isIPv4 } from 'node:net';
import { vendorSpec } from './table.ts';
import type { StorageVendor } from './types.ts';

interface NameRule {
  readonly min: number;
  readonly max: number;
  /** Allowed characters, e.g. /^[a-z0-9.-]+$/. */
  readonly chars: RegExp;
  readonly charsText: string;
  /** Further checks: a reason, or undefined. */
  readonly extra?: (name: string) => string | undefined;
}

const edges = (name: string) => (/^[a-z0-9]/.test(name) && /[a-z0-9]$/.test(name) ? undefined : 'must start and end with a lowercase letter or digit');

const dotted = (name: string) => {
  if (name.includes('..')) return 'must not contain two adjacent periods';
  if (isIPv4(name)) return 'must not be formatted as an IP address';
  return undefined;
};

const first = (...checks: ((name: string) => string | undefined)[]) => (name: string) => {
  for (const c of checks) {
    const r = c(name);
    if (r) return r;
  }
  return undefined;
};

const S3_RESERVED_PREFIXES = ['xn--', 'sthree-', 'amzn-s3-demo-'];
const S3_RESERVED_SUFFIXES = ['-s3alias', '--ol-s3', '.mrap', '--x-s3', '--table-s3'];

/** Rules per vendor; vendor 11 (any S3-compatible server) keeps the general rule of validateStorageConfig. */
const RULES: Partial<Record<StorageVendor, NameRule>> = {
  // Amazon S3, general purpose buckets.
  1: {
    min: 3,
    max: 63,
    chars: /^[a-z0-9.-]+$/,
    charsText: 'lowercase letters, digits, "." and "-"',
    extra: first(edges, dotted, (n) => {
      const p = S3_RESERVED_PREFIXES.find((x) => n.startsWith(x));
      if (p) return `must not start with the reserved prefix "${p}"`;
      const s = S3_RESERVED_SUFFIXES.find((x) => n.endsWith(x));
      return s ? `must not end with the reserved suffix "${s}"` : undefined;
    }),
  },
  // Alibaba Cloud OSS.
  2: { min: 3, max: 63, chars: /^[a-z0-9-]+$/, charsText: 'lowercase letters, digits and "-"', extra: edges },
  // Tencent COS: the whole `<name>-<APPID>`.
  3: { min: 1, max: 60, chars: /^[a-z0-9-]+$/, charsText: 'lowercase letters, digits and "-"', extra: edges },
  // Azure Blob container.
  5: {
    min: 3,
    max: 63,
    chars: /^[a-z0-9-]+$/,
    charsText: 'lowercase letters, digits and "-"',
    extra: first(edges, (n) => (n.includes('--') ? 'must not contain two adjacent hyphens' : undefined)),
  },
  // Google Cloud Storage (names with dots may be up to 222 characters, each dot-separated part at most 63).
  6: {
    min: 3,
    max: 222,
    chars: /^[a-z0-9._-]+$/,
    charsText: 'lowercase letters, digits, ".", "_" and "-"',
    extra: first(edges, dotted, (n) => {
      if (!n.includes('.') && n.length > 63) return 'must be at most 63 characters unless it contains periods';
      if (n.split('.').some((part) => part.length > 63)) return 'must have at most 63 characters between periods';
      if (n.startsWith('goog')) return 'must not start with "goog"';
      if (/g[o0][o0]g[l1]e/.test(n)) return 'must not contain "google" or a look-alike';
      return undefined;
    }),
  },
  // Huawei Cloud OBS.
  7: {
    min: 3,
    max: 63,
    chars: /^[a-z0-9.-]+$/,
    charsText: 'lowercase letters, digits, "." and "-"',
    extra: first(edges, dotted, (n) => (/\.-|-\./.test(n) ? 'must not have "." and "-" next to each other' : undefined)),
  },
  // Baidu AI Cloud BOS.
  8: { min: 4, max: 63, chars: /^[a-z0-9-]+$/, charsText: 'lowercase letters, digits and "-"', extra: edges },
};

/** The rule of `vendor` that the bucket name breaks, e.g. `must be 3-63 characters for Amazon S3`, or undefined. */
export function bucketNameProblem(vendor: StorageVendor, name: string): string | undefined {
  const rule = RULES[vendor];
  if (!rule) return undefined;
  const of = `for ${vendorSpec(vendor)?.name ?? `vendor ${vendor}`}`;
  if (name.length < rule.min || name.length > rule.max) return `must be ${rule.min}-${rule.max} characters ${of}`;
  if (!rule.chars.test(name)) return `may contain only ${rule.charsText} ${of}`;
  const extra = rule.extra?.(name);
  return extra ? `${extra} ${of}` : undefined;
}

/**
 * Azure storage account names (vendor 5's accessKey) are 3-24 lowercase letters and digits: the account becomes the
 * host name `<account>.blob.core.windows.net`, so anything else must never reach a URL.
 */
export const AZURE_ACCOUNT_NAME = /^[a-z0-9]{3,24}$/;
