import { startLoopbackStun, type LoopbackStun } from './stun-responder.ts';

let shared: Promise<LoopbackStun> | undefined;

/** One loopback STUN responder per process, started on first use (its socket does not keep the process alive). */
export function sharedLoopbackStun(): Promise<LoopbackStun> {
  shared ??= startLoopbackStun();
  return shared;
}
