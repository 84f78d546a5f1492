// A JSON-ready description of a parsed token, for `reeltime token inspect` and debugging tools.
import type { ParsedToken } from './parse.ts';
import { privilegeName, type TokenService } from './services.ts';
import { verifySignature } from './verify.ts';

export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [k: string]: JsonValue };

export interface InspectOptions {
  /** When given, the signature is checked ('valid' / 'invalid'); otherwise 'unchecked'. */
  readonly appCertificate?: string;
  /** Unix seconds for the `expired` flag; default the current time. */
  readonly now?: number;
}

export interface TokenDescription {
  readonly version: string;
  readonly appId: string;
  readonly issueTs: number;
  readonly expire: number;
  /** issueTs + expire, Unix seconds. */
  readonly expiresAt: number;
  readonly salt: number;
  readonly services: readonly { readonly [k: string]: JsonValue }[];
  readonly signature: 'valid' | 'invalid' | 'unchecked';
  readonly expired: boolean;
}

function describeService(t: ParsedToken, s: TokenService): { readonly [k: string]: JsonValue } {
  const { type, name, privileges, ...fields } = s;
  const named: Record<string, number> = {};
  const deadlines: Record<string, number> = {};
  for (const [id, value] of [...privileges].sort((a, b) => a[0] - b[0])) {
    const n = privilegeName(type, id);
    named[n] = value;
    deadlines[n] = t.issueTs + Math.min(t.expire, value);
  }
  return { type, name, ...(fields as Record<string, JsonValue>), privileges: named, privilegeExpiresAt: deadlines };
}

export function describeToken(t: ParsedToken, opts: InspectOptions = {}): TokenDescription {
  const now = opts.now ?? Math.floor(Date.now() / 1000);
  return {
    version: t.version,
    appId: t.appId,
    issueTs: t.issueTs,
    expire: t.expire,
    expiresAt: t.issueTs + t.expire,
    salt: t.salt,
    services: t.services.map((s) => describeService(t, s)),
    signature: opts.appCertificate === undefined ? 'unchecked' : verifySignature(t, opts.appCertificate) ? 'valid' : 'invalid',
    expired: !(now < t.issueTs + t.expire),
  };
}
