import { pino, type Logger as PinoLogger, type DestinationStream } from 'pino';

export type Logger = PinoLogger;

/** Keys whose values are secrets wherever they appear (config, request bodies, storage settings). */
export const SECRET_KEYS: readonly string[] = Object.freeze([
  'appCertificate',
  'appcert',
  'certificate',
  'customerSecret',
  'secret',
  'turnSecret',
  'assertionSecret',
  'credential',
  'secretKey',
  'accessKey',
  'stsToken',
  'metricsToken',
  'password',
  'authorization',
  'token',
  'salt',
]);

const paths: string[] = [];
for (const k of SECRET_KEYS) {
  paths.push(k, `*.${k}`, `*.*.${k}`, `*.*.*.${k}`, `*.*.*.*.${k}`);
}
paths.push('req.headers.authorization', 'headers.authorization');

/** Structured JSON logger; secret-named keys are censored at any of the first five levels. */
export function createLogger(level = 'info', destination?: DestinationStream): Logger {
  return pino({ level, redact: { paths, censor: '[redacted]' } }, destination);
}

/** Deep copy with secret-named keys replaced, for values that leave the process (events, errors, responses). */
export function redactSecrets<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => redactSecrets(v)) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      out[k] = SECRET_KEYS.includes(k) ? '[redacted]' : redactSecrets(v);
    }
    return out as T;
  }
  return value;
}
