/** A live mix pipeline with the tests' defaults: 640×360@15, best fit, audio profile 0, 2 s slices, real clock. */
import { systemClock } from '../../../../clock/index.ts';
import { mixAudioProfile } from '../../audio-profile.ts';
import { completeMixLayoutSettings, MIX_LAYOUT } from '../../layout-settings.ts';
import { MixPipeline, type MixPipelineEvents, type MixPipelineOptions } from '../mix-pipeline.ts';

export function testPipeline(workDir: string, overrides: Partial<MixPipelineOptions>, events: MixPipelineEvents): MixPipeline {
  return new MixPipeline(
    {
      workDir,
      clock: systemClock,
      canvas: { width: 640, height: 360 },
      fps: 15,
      bitrateKbps: 600,
      audioProfile: mixAudioProfile(0),
      settings: completeMixLayoutSettings({ kind: MIX_LAYOUT.bestFit }),
      sliceSeconds: 2,
      ...overrides,
    },
    events,
  );
}
