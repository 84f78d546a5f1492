export { createLogger, type Logger, SECRET_KEYS, redactSecrets } from './logger.ts';
export { safeStreamUrl, safeUrl } from './urls.ts';
