// The sessions API's reading side: query parsing, cursor, shaping into the response schemas (docs/recording-api.md, "Sessions").
export { encodeCursor, parseSessionQuery, SESSION_PAGE_SIZE, SESSION_STATES } from './query.ts';
export { hasStarted, sessionDetail, sessionSummary, webhookView, type PlaybackUrls } from './view.ts';
export { SessionReader, type SessionReaderDeps } from './reader.ts';
