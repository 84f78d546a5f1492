export type { Clock, TimerHandle } from './clock.ts';
export { systemClock } from './clock.ts';
export { ManualClock } from './manual-clock.ts';
export { ntpToUnixMs, unixMsToNtp } from './ntp.ts';
