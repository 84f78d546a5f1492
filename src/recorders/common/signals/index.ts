export { SessionSignals, type SessionSignalsDeps } from './session-signals.ts';
