/** The start body `reeltime record start` sends for each mode, from its flags: pure, so it tests without a server. */
import type { RecordingMode, StartRequest } from '@reeltime/client';

type StartClientRequest = StartRequest['clientRequest'];

export interface StartChoices {
  readonly mode: RecordingMode;
  /** RTC token of the recording client. */
  readonly token: string;
  readonly storageConfig: StartClientRequest['storageConfig'];
  readonly formats: readonly ('hls' | 'mp4')[];
  /** communication (channelType 0) or live (1). */
  readonly profile: 'communication' | 'live';
  /** mix: mixedVideoLayout 0 floating, 1 best fit, 2 vertical (3 custom needs layoutConfig: use the API). */
  readonly layout: 0 | 1 | 2;
  readonly width: number;
  readonly height: number;
  /** web: the page to record. */
  readonly url: string | undefined;
  readonly maxIdleTime: number;
}

export const LAYOUTS = Object.freeze({ floating: 0, bestfit: 1, vertical: 2 } as const);

/** The local bucket's storageConfig: any vendor is written to the local bucket in development (docs/storage.md). */
export function localStorageConfig(bucket: string): StartClientRequest['storageConfig'] {
  return { vendor: 1, region: 0, bucket, accessKey: 'reeltime-local', secretKey: 'reeltime-local' };
}

/** The acquire scene of a mode: 1 for web recording, 0 otherwise. */
export const sceneOf = (mode: RecordingMode): 0 | 1 => (mode === 'web' ? 1 : 0);

export function startClientRequest(c: StartChoices): StartClientRequest {
  const avFileType = [...c.formats];
  const channelType = c.profile === 'live' ? 1 : 0;
  switch (c.mode) {
    case 'individual':
      return {
        token: c.token,
        storageConfig: c.storageConfig,
        recordingConfig: { channelType, subscribeUidGroup: 0, maxIdleTime: c.maxIdleTime },
        recordingFileConfig: { avFileType },
      };
    case 'mix':
      return {
        token: c.token,
        storageConfig: c.storageConfig,
        recordingConfig: {
          channelType,
          maxIdleTime: c.maxIdleTime,
          transcodingConfig: { width: c.width, height: c.height, fps: 15, bitrate: 800, mixedVideoLayout: c.layout },
        },
        recordingFileConfig: { avFileType },
      };
    case 'web':
      return {
        token: c.token,
        storageConfig: c.storageConfig,
        recordingFileConfig: { avFileType },
        extensionServiceConfig: {
          extensionServices: [
            {
              serviceName: 'web_recorder_service',
              serviceParam: { url: c.url ?? '', audioProfile: 0, videoWidth: c.width, videoHeight: c.height, maxRecordingHour: 1 },
            },
          ],
        },
      };
  }
}
