/**
 * The start request both mix benchmarks send (bench/mix/index.ts, bench/mix/profile.ts): every user's audio and
 * video, best fit on a 640×360@15 H.264 canvas at 800 kb/s, AAC 48 kb/s mono, HLS.
 */
import { MIX_LAYOUT } from '../../src/media/mix/index.ts';
import { rtcToken, storageConfig } from '../../src/recorders/individual/testing/harness.ts';

export const BENCH_CANVAS = { width: 640, height: 360 } as const;
export const BENCH_FPS = 15;
export const BENCH_BITRATE_KBPS = 800;
/** The recorder's uid in the channel. */
export const BENCH_RECORDER_UID = '9000';

export function benchMixStartRequest(cname: string): Record<string, unknown> {
  return {
    token: rtcToken(cname, Number(BENCH_RECORDER_UID), 2),
    storageConfig: storageConfig(),
    recordingConfig: {
      channelType: 0,
      streamTypes: 2,
      audioProfile: 0,
      maxIdleTime: 120,
      subscribeVideoUids: ['#allstream#'],
      subscribeAudioUids: ['#allstream#'],
      transcodingConfig: { ...BENCH_CANVAS, fps: BENCH_FPS, bitrate: BENCH_BITRATE_KBPS, mixedVideoLayout: MIX_LAYOUT.bestFit },
    },
    recordingFileConfig: { avFileType: ['hls'] },
  };
}
