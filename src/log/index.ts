export { createLogger, type Logger, SECRET_KEYS, redactSecrets } from './logger.ts';
export { redactStreamUrlIn, safeStreamUrl, safeUrl } from './urls.ts';
