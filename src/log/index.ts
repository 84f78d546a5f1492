export { createLogger, type Logger, SECRET_KEYS, redactSecrets } from './logger.ts';
