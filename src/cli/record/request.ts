/**
 * The start and update bodies `reeltime record start|update` sends for each mode, from its flags: pure, so they
 * test without a server.
 */
import type { RecordingMode, StartRequest, UpdateRequest } from '@reeltime/client';

type StartClientRequest = StartRequest['clientRequest'];
type UpdateClientRequest = UpdateRequest['clientRequest'];

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

export interface UpdateChoices {
  /** Subscribe lists: uids, or `['#allstream#']` for everyone; undefined leaves the kind's list as it is. */
  readonly audio: readonly string[] | undefined;
  readonly video: readonly string[] | undefined;
  /** Pause (true) or resume (false); undefined leaves the hold as it is. */
  readonly onhold: boolean | undefined;
}

/**
 * The update body: subscription lists, and the hold where each mode takes it: web's `webRecordingConfig.onhold`,
 * `recordingConfig.onhold` (reeltime's extension) for individual and mix.
 */
export function updateClientRequest(mode: RecordingMode, c: UpdateChoices): UpdateClientRequest {
  const hold = c.onhold === undefined ? {} : mode === 'web' ? { webRecordingConfig: { onhold: c.onhold } } : { recordingConfig: { onhold: c.onhold } };
  const lists =
    c.audio === undefined && c.video === undefined
      ? {}
      : {
          streamSubscribe: {
            ...(c.audio !== undefined ? { audioUidList: { subscribeAudioUids: [...c.audio] } } : {}),
            ...(c.video !== undefined ? { videoUidList: { subscribeVideoUids: [...c.video] } } : {}),
          },
        };
  return { ...lists, ...hold };
}
