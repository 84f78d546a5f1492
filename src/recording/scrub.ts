import type { StartClientRequest } from './validation/types.ts';

const REDACTED = '[redacted]';

/** The secret values of a start request (storage keys, STS token, RTC token, decryption key and salt). */
function secretValues(cr: StartClientRequest): string[] {
  const s = cr.storageConfig;
  const r = cr.recordingConfig;
  return [s.accessKey, s.secretKey, s.stsToken, cr.token, r?.secret, r?.salt, r?.transcription?.secret].filter(
    (v): v is string => typeof v === 'string' && v.length >= 4,
  );
}

/** Replaces any secret of the request found in a text that leaves the process (recorder error messages in logs). */
export function scrub(text: string, cr: StartClientRequest): string {
  let out = text;
  for (const v of secretValues(cr)) out = out.split(v).join(REDACTED);
  return out;
}

/**
 * The start request as the sessions API shows it: the same secret fields replaced by "[redacted]" (present ones
 * only, so a reader still sees which were sent), and any secret value found elsewhere in it scrubbed.
 */
export function redactStartRequest(cr: StartClientRequest): StartClientRequest {
  const redactedRecordingConfig = (rc: NonNullable<StartClientRequest['recordingConfig']>) => {
    const out = mark(rc, ['secret', 'salt']);
    return rc.transcription ? { ...out, transcription: mark(rc.transcription, ['secret']) } : out;
  };
  const mark = <T extends object>(o: T, keys: readonly (keyof T)[]): T => {
    const out = { ...o };
    for (const k of keys) if (out[k] !== undefined) (out as Record<keyof T, unknown>)[k] = REDACTED;
    return out;
  };
  const redacted: StartClientRequest = {
    ...mark(cr, ['token']),
    storageConfig: mark(cr.storageConfig, ['accessKey', 'secretKey', 'stsToken']),
    ...(cr.recordingConfig ? { recordingConfig: redactedRecordingConfig(cr.recordingConfig) } : {}),
  };
  return JSON.parse(scrub(JSON.stringify(redacted), cr)) as StartClientRequest;
}
