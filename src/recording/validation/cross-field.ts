/**
 * Cross-field rules of the request tables: named functions that `withRules` attaches to a schema in tables.ts.
 * Each runs after every field of its object passed, and names the field it refuses.
 */
import { ALL_STREAMS } from './formats.ts';
import { MAX_PIXELS } from './primitives.ts';
import { fail, join } from './schema.ts';

/** `"#allstream#"` means every user, so it is the list's only entry or it is refused. */
export function allStreamsAlone(list: readonly string[], path: string): void {
  if (list.length > 1 && list.includes(ALL_STREAMS)) fail(path, `"${ALL_STREAMS}" must be the only entry of the list`);
}

/** The distinct uids named by lists; the wildcard names no particular uid and is not counted. */
export function distinctUids(...lists: (readonly string[] | undefined)[]): Set<string> {
  const out = new Set<string>();
  for (const l of lists) for (const u of l ?? []) if (u !== ALL_STREAMS) out.add(u);
  return out;
}

function exclusive(v: Readonly<Record<string, unknown>>, path: string, a: string, b: string): void {
  if (v[a] !== undefined && v[b] !== undefined) fail(join(path, b), `must not be set together with ${a}`);
}

/** An audio allow list and an audio deny list exclude each other. */
export function exclusiveAudioLists(v: { readonly subscribeAudioUids?: unknown; readonly unsubscribeAudioUids?: unknown }, path: string): void {
  exclusive(v, path, 'subscribeAudioUids', 'unsubscribeAudioUids');
}

/** A video allow list and a video deny list exclude each other. */
export function exclusiveVideoLists(v: { readonly subscribeVideoUids?: unknown; readonly unsubscribeVideoUids?: unknown }, path: string): void {
  exclusive(v, path, 'subscribeVideoUids', 'unsubscribeVideoUids');
}

/** `secret` exactly when decrypting; `salt` exactly with the GCM2 modes 7 and 8. */
export function decryptionKeys(v: { readonly decryptionMode?: number; readonly secret?: string; readonly salt?: string }, path: string): void {
  const mode = v.decryptionMode ?? 0;
  if (mode !== 0 && v.secret === undefined) fail(join(path, 'secret'), 'is required when decryptionMode is not 0');
  if (mode === 0 && v.secret !== undefined) fail(join(path, 'secret'), 'must only be set when decryptionMode is not 0');
  if ((mode === 7 || mode === 8) && v.salt === undefined) fail(join(path, 'salt'), 'is required when decryptionMode is 7 or 8');
  if (mode !== 7 && mode !== 8 && v.salt !== undefined) fail(join(path, 'salt'), 'must only be set when decryptionMode is 7 or 8');
}

/** `streamMode: "original"` records audio without transcoding, so only audio may be subscribed. */
export function originalStreamMode(v: { readonly streamMode?: string; readonly streamTypes?: number }, path: string): void {
  if (v.streamMode === 'original' && (v.streamTypes ?? 2) !== 0) {
    fail(join(path, 'streamMode'), '"original" requires streamTypes 0 (audio only)');
  }
}

/** The speaker timeline is found in the audio: a recording of video alone has none. */
export function speakerTimelineHearsAudio(
  v: { readonly speakerTimeline?: boolean; readonly streamTypes?: number; readonly transcription?: unknown },
  path: string,
): void {
  if (v.speakerTimeline === true && v.streamTypes === 1) fail(join(path, 'speakerTimeline'), 'needs the audio: streamTypes 0 or 2, not 1 (video only)');
  if (v.transcription !== undefined && v.speakerTimeline !== true) fail(join(path, 'transcription'), 'needs speakerTimeline: true');
}

/** The mix canvas (default 360 x 640) is at most 1920 x 1080 pixels. */
export function canvasSize(v: { readonly width?: number; readonly height?: number }, path: string): void {
  const w = v.width ?? 360;
  const h = v.height ?? 640;
  if (w * h > MAX_PIXELS) fail(join(path, v.width !== undefined ? 'width' : 'height'), 'width x height must be at most 1920 x 1080');
}

interface LayoutLike {
  readonly mixedVideoLayout?: number;
  readonly layoutConfig?: readonly { readonly x_axis: number; readonly y_axis: number; readonly width: number; readonly height: number }[];
}

/** `layoutConfig` goes with the custom layout (3) and only with it. */
export function customLayout(v: LayoutLike, path: string): void {
  const layout = v.mixedVideoLayout ?? 0;
  if (v.layoutConfig !== undefined && layout !== 3) fail(join(path, 'layoutConfig'), 'is only allowed with mixedVideoLayout 3 (custom)');
  if (layout === 3 && v.layoutConfig === undefined) fail(join(path, 'layoutConfig'), 'is required with mixedVideoLayout 3');
}

/** Every custom window stays inside the canvas. */
export function windowsInsideCanvas(v: LayoutLike, path: string): void {
  v.layoutConfig?.forEach((e, i) => {
    const p = `${join(path, 'layoutConfig')}[${i}]`;
    if (e.x_axis + e.width > 1 + 1e-6) fail(join(p, 'width'), 'x_axis + width must be at most 1');
    if (e.y_axis + e.height > 1 + 1e-6) fail(join(p, 'height'), 'y_axis + height must be at most 1');
  });
}

/** The recorded page is at most 1920 x 1080 pixels. */
export function pageSize(v: { readonly videoWidth: number; readonly videoHeight: number }, path: string): void {
  if (v.videoWidth * v.videoHeight > MAX_PIXELS) fail(join(path, 'videoHeight'), 'videoWidth x videoHeight must be at most 1920 x 1080');
}

interface ServicesLike {
  readonly extensionServices: readonly { readonly serviceName: string }[];
}

/** Each extension service appears once. */
export function oneOfEachService(v: ServicesLike, path: string): void {
  const names = v.extensionServices.map((s) => s.serviceName);
  names.forEach((n, i) => {
    if (names.indexOf(n) !== i) fail(`${join(path, 'extensionServices')}[${i}].serviceName`, 'must not repeat a service');
  });
}

/** CDN push needs the page recording it pushes. */
export function webRecorderIncluded(v: ServicesLike, path: string): void {
  if (!v.extensionServices.some((s) => s.serviceName === 'web_recorder_service')) {
    fail(join(path, 'extensionServices'), 'must include web_recorder_service');
  }
}

/** Postponed transcoding makes MP4; postponed audio mixing makes audio files and takes `audio` settings. */
export function transcodeOptionsByMode(
  v: { readonly transConfig: { readonly transMode: string }; readonly container?: { readonly format?: string }; readonly audio?: unknown },
  path: string,
): void {
  const mode = v.transConfig.transMode;
  const fmt = v.container?.format;
  if (mode === 'postponeTranscoding' && fmt !== undefined && fmt !== 'mp4') {
    fail(join(path, 'container.format'), 'must be "mp4" with transMode postponeTranscoding');
  }
  if (mode === 'audioMix' && fmt === 'mp4') fail(join(path, 'container.format'), 'must be mp3, m4a or aac with transMode audioMix');
  if (mode !== 'audioMix' && v.audio !== undefined) fail(join(path, 'audio'), 'is only allowed with transMode audioMix');
}
