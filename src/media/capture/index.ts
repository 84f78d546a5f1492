export { startCapture, type CaptureHandle } from './capture.ts';
export type { LoadResult } from './browser.ts';
export type { CaptureEvent, CaptureEventListener, CapturedSegment } from './events.ts';
export { defaultVideoBitrateKbps, resolveCaptureOptions, type CaptureOptions, type ResolvedCaptureOptions } from './options.ts';
export type { CaptureChildName } from './supervised-child.ts';
