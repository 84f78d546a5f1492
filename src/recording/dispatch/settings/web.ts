/**
 * Web mode's settings: the `web_recorder_service` page and encoder fields, the CDN push target and the files
 * asked for (docs/recording-web.md, "Request"). Pure.
 */
import type { MixAudioProfileId } from '../../../media/mix/index.ts';
import type { SettingsSource } from './source.ts';

export interface WebSettings {
  readonly mode: 'web';
  readonly url: string;
  readonly width: number;
  readonly height: number;
  readonly videoFps: number | undefined;
  readonly videoBitrateKbps: number | undefined;
  readonly audioProfile: MixAudioProfileId;
  readonly mobile: boolean;
  readonly maxRecordingHour: number;
  /** Length of each MP4 file, seconds (`maxVideoDuration` minutes, default 120). */
  readonly mp4SplitSec: number;
  /** Paused now: start's `serviceParam.onhold`, then each update's `webRecordingConfig.onhold`. */
  readonly onhold: boolean;
  /** `readyTimeout` in ms; 0 = no detection. */
  readonly readyTimeoutMs: number;
  /** The CDN push target now (start's first `rtmp_publish_service` output, then each update's); undefined: none. */
  readonly rtmpUrl: string | undefined;
  readonly hls: boolean;
  readonly mp4: boolean;
}

export const DEFAULT_MAX_VIDEO_MINUTES = 120;

export function webSettings(s: SettingsSource): WebSettings {
  const services = s.clientRequest.extensionServiceConfig?.extensionServices ?? [];
  let web: Extract<(typeof services)[number], { serviceName: 'web_recorder_service' }> | undefined;
  let startRtmpUrl: string | undefined;
  for (const e of services) {
    if (e.serviceName === 'web_recorder_service') web = e;
    else if (e.serviceName === 'rtmp_publish_service') startRtmpUrl = e.serviceParam.outputs[0]?.rtmpUrl;
  }
  if (!web) throw new Error('extensionServiceConfig.extensionServices: web mode without web_recorder_service (validation lets none through)');
  const p = web.serviceParam;
  const av = s.clientRequest.recordingFileConfig?.avFileType ?? ['hls'];
  return Object.freeze({
    mode: 'web',
    url: p.url,
    width: p.videoWidth,
    height: p.videoHeight,
    videoFps: p.videoFps,
    videoBitrateKbps: p.videoBitrate,
    audioProfile: p.audioProfile,
    mobile: p.mobile === true,
    maxRecordingHour: p.maxRecordingHour,
    mp4SplitSec: (p.maxVideoDuration ?? DEFAULT_MAX_VIDEO_MINUTES) * 60,
    onhold: s.onhold ?? p.onhold === true,
    readyTimeoutMs: (p.readyTimeout ?? 0) * 1000,
    rtmpUrl: s.rtmp !== undefined ? s.rtmp[0]?.rtmpUrl : startRtmpUrl,
    hls: av.includes('hls'),
    mp4: av.includes('mp4'),
  });
}
