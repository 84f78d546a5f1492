import type { StartClientRequest } from './validation/types.ts';

/** The secret values of a start request (storage keys, STS token, RTC token, decryption key and salt). */
function secretValues(cr: StartClientRequest): string[] {
  const s = cr.storageConfig;
  const r = cr.recordingConfig;
  return [s.accessKey, s.secretKey, s.stsToken, cr.token, r?.secret, r?.salt].filter(
    (v): v is string => typeof v === 'string' && v.length >= 4,
  );
}

/** Replaces any secret of the request found in a text that leaves the process (recorder error messages in logs). */
export function scrub(text: string, cr: StartClientRequest): string {
  let out = text;
  for (const v of secretValues(cr)) out = out.split(v).join('[redacted]');
  return out;
}
