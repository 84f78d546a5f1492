export { startCapture, type CaptureHandle } from './capture.ts';
export { audioServicePid } from './audio-service-watch.ts';
export { hostResolverRules, type LoadResult } from './browser.ts';
export type { CaptureEvent, CaptureEventListener, CapturedSegment } from './events.ts';
export { defaultVideoBitrateKbps, resolveCaptureOptions, type CaptureOptions, type PinnedHost, type ResolvedCaptureOptions } from './options.ts';
export type { CaptureChildName } from './supervised-child.ts';
