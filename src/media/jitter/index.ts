// The recorder's jitter buffer and loss repair (issue 27; docs/recording-individual.md, "Loss").
export { DEFAULT_JITTER_BOUNDS, JitterBuffer, RECORDING_JITTER_BOUNDS, type JitterBounds, type JitterOutput, type JitterPacket, type JitterStats } from './jitter-buffer.ts';
export { LOSS_FIGURES, LossMeter, type FeedStats, type LossFigure, type LossKind } from './loss-meter.ts';
export { KEYFRAME_REQUEST_INTERVAL_MS, RepairedFeed, type RepairedFeedOptions } from './repaired-feed.ts';
export { StreamRepair, type RepairResult, type RepairStats } from './stream-repair.ts';
