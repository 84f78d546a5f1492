// The sessions API's pure parts: query parsing, cursor, response shapes (docs/recording-api.md, "Sessions").
export { encodeCursor, parseSessionQuery, SESSION_PAGE_SIZE, SESSION_STATES } from './query.ts';
export {
  hasStarted,
  sessionDetail,
  sessionSummary,
  type PlaybackUrl,
  type SessionDetail,
  type SessionEvent,
  type SessionFile,
  type SessionSummary,
} from './view.ts';
export { SessionReader, type SessionPage, type SessionReaderDeps } from './reader.ts';
