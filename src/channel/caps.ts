/**
 * Caps on what one token, one channel and one client address may hold open at once (WHIP/WHEP sessions, event
 * streams). Pure counting: the caller says which keys a new resource counts under and releases it when it ends.
 */

import { createHash } from 'node:crypto';

/** A token counts by its digest (the same string is the same token). */
export const tokenKey = (token: string | undefined): string | undefined =>
  token === undefined ? undefined : createHash('sha256').update(token).digest('base64url').slice(0, 22);

const SESSION_CAP_SETTING: Readonly<Record<CapKind, string>> = {
  perToken: 'channel.maxSessionsPerToken',
  perChannel: 'channel.maxSessionsPerChannel',
  perAddress: 'channel.maxSessionsPerAddress',
};
const CAP_HOLDER: Readonly<Record<CapKind, string>> = { perToken: 'this token', perChannel: 'this channel', perAddress: 'this client address' };

/** The reason of a 429 `too_many_sessions`, naming the setting. */
export function sessionCapReason(cap: CapKind, limit: number): string {
  return `${CAP_HOLDER[cap]} already holds ${limit} WHIP/WHEP sessions (${SESSION_CAP_SETTING[cap]}); end one or retry later`;
}

/** Largest number held at once per key; 0 turns that cap off. */
export interface CapLimits {
  readonly perToken: number;
  readonly perChannel: number;
  readonly perAddress: number;
}

export type CapKind = keyof CapLimits;

/** The keys one resource counts under; an absent key is not counted (no token, a trusted address). */
export interface CapKeys {
  readonly token?: string | undefined;
  readonly channel?: string | undefined;
  readonly address?: string | undefined;
}

export type CapResult =
  | { readonly ok: true; readonly release: () => void }
  | { readonly ok: false; readonly cap: CapKind; readonly limit: number };

const KINDS: readonly CapKind[] = ['perToken', 'perChannel', 'perAddress'];
const keyOf = (keys: CapKeys, kind: CapKind): string | undefined =>
  kind === 'perToken' ? keys.token : kind === 'perChannel' ? keys.channel : keys.address;

export class CapCounter {
  readonly #held: Record<CapKind, Map<string, number>> = { perToken: new Map(), perChannel: new Map(), perAddress: new Map() };

  constructor(private readonly limits: CapLimits) {}

  /** Counts one more resource under `keys`, or names the first cap it would exceed (nothing is counted then). */
  acquire(keys: CapKeys): CapResult {
    for (const kind of KINDS) {
      const key = keyOf(keys, kind);
      const limit = this.limits[kind];
      if (key === undefined || limit <= 0) continue;
      if ((this.#held[kind].get(key) ?? 0) >= limit) return { ok: false, cap: kind, limit };
    }
    const counted = KINDS.flatMap((kind) => {
      const key = keyOf(keys, kind);
      return key === undefined ? [] : [[kind, key] as const];
    });
    for (const [kind, key] of counted) this.#held[kind].set(key, (this.#held[kind].get(key) ?? 0) + 1);
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        for (const [kind, key] of counted) {
          const n = (this.#held[kind].get(key) ?? 1) - 1;
          if (n <= 0) this.#held[kind].delete(key);
          else this.#held[kind].set(key, n);
        }
      },
    };
  }

  /** How many are held under a key now (tests, metrics). */
  held(kind: CapKind, key: string): number {
    return this.#held[kind].get(key) ?? 0;
  }
}
