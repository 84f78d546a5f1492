/** The recorders a process runs by default, one per mode, built from the server's context (other modes add theirs here). */
import { join } from 'node:path';
import type { ChannelModule } from '../channel/index.ts';
import type { Recorder } from '../recording/dispatch/index.ts';
import type { ServerContext } from '../server/module.ts';
import type { StorageModule } from '../storage/index.ts';
import type { WhepPeer } from './common/follower/index.ts';
import { registerRecorderMetrics } from './common/launch/index.ts';
import { createIndividualRecorder, type IndividualTestHooks } from './individual/index.ts';
import { createMixRecorder } from './mix/index.ts';
import { createWebRecorder, webTuning } from './web/index.ts';

export interface RecorderDeps {
  readonly channel: ChannelModule;
  readonly storage: StorageModule;
  /** This process's HTTP base URL, known once the server listens. */
  readonly baseUrl: () => string;
  /** Fault injection in the recorders (tests). */
  readonly testHooks?: RecorderTestHooks;
}

/** Fault injection in the recorders (tests), through their options rather than patched prototypes. */
export interface RecorderTestHooks {
  readonly individual?: IndividualTestHooks;
  /** Each WHEP peer an individual or mix recorder makes to subscribe (a test closes it as a failing peer). */
  readonly whepPeerMade?: (peer: WhepPeer) => void;
}

export function defaultRecorders(ctx: ServerContext, deps: RecorderDeps): Recorder[] {
  // Only processes that record report recorder metrics (docs/metrics.md).
  const meter = ctx.roles.has('recorder') ? registerRecorderMetrics(ctx.metrics) : undefined;
  return [
    createIndividualRecorder({
      channel: deps.channel,
      storage: deps.storage,
      clock: ctx.clock,
      log: ctx.log,
      workRoot: join(ctx.config.dataDir, 'recorder', 'individual'),
      baseUrl: deps.baseUrl,
      meter,
      mediaPath: ctx.config.recording.mediaPath,
      ...(deps.testHooks?.whepPeerMade ? { whepPeerMade: deps.testHooks.whepPeerMade } : {}),
      // The transcription hook's URL under the same private-target rule as webhooks.
      policy: { allowPrivate: ctx.config.notify.allowPrivateUrls },
      ...(ctx.config.recording.individualSliceSeconds > 0 ? { sliceSeconds: ctx.config.recording.individualSliceSeconds } : {}),
      ...(deps.testHooks?.individual ? { testHooks: deps.testHooks.individual } : {}),
    }),
    createMixRecorder({
      channel: deps.channel,
      storage: deps.storage,
      clock: ctx.clock,
      log: ctx.log,
      workRoot: join(ctx.config.dataDir, 'recorder', 'mix'),
      baseUrl: deps.baseUrl,
      mediaPath: ctx.config.recording.mediaPath,
      ...(deps.testHooks?.whepPeerMade ? { whepPeerMade: deps.testHooks.whepPeerMade } : {}),
      // Background images are fetched under the same private-target rule as webhooks (docs/recording-mix.md).
      policy: { allowPrivate: ctx.config.notify.allowPrivateUrls },
      fitLayers: ctx.config.recording.mixFitLayers,
      ...(ctx.config.recording.mixSliceSeconds > 0 ? { sliceSeconds: ctx.config.recording.mixSliceSeconds } : {}),
      meter,
    }),
    createWebRecorder({
      storage: deps.storage,
      clock: ctx.clock,
      log: ctx.log,
      workRoot: join(ctx.config.dataDir, 'recorder', 'web'),
      tuning: webTuning(ctx.config.recording),
      meter,
      // The page URL under the same private-target rule as start's check; the browser is pinned to its answer.
      pageUrlPolicy: ctx.config.notify.allowPrivateUrls ? undefined : { allowPrivate: false },
      pageHosts: ctx.config.recording.webPageHosts,
    }),
  ];
}
