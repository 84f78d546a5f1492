import type { Ingress } from './types.ts';

/** The secrets an ingress holds: its stream key or SRT passphrase, a WHEP source's token, its source URL's password and passphrase. */
export function secretsOf(i: Ingress): string[] {
  const out = [i.streamKey, i.token].filter((x): x is string => x !== undefined);
  if (i.url !== undefined) {
    const u = new URL(i.url);
    if (u.password) out.push(decodeURIComponent(u.password));
    const passphrase = u.searchParams.get('passphrase');
    if (passphrase) out.push(passphrase);
  }
  return out.filter((x) => x.length >= 4);
}

/** A source URL as the API answers it: the password and an SRT passphrase replaced by `***`. */
export function maskUrl(raw: string): string {
  const u = new URL(raw);
  if (u.password) u.password = '***';
  if (u.searchParams.has('passphrase')) u.searchParams.set('passphrase', '***');
  return u.href;
}
