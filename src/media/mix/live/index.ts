// The live mix pipeline: decoders per user, the compositor's frame clock, one encoder (docs/recording-mix.md,
// "Live pipeline").
export { UserAudioDecoder, type UserAudioDecoderOptions } from './audio-decoder.ts';
export { FrameClock } from './frame-clock.ts';
export { MixEncoder, mixEncoderArgs, type MixEncoderEvents, type MixEncoderOptions } from './mix-encoder.ts';
export { MixEngine, type MixEngineOptions, type MixImages, type MixOutputFrame, NO_MIX_IMAGES } from './mix-engine.ts';
export { MIX_SLICE_SUBDIR, type MixMediaKind, MixPipeline, type MixPipelineEvents, type MixPipelineOptions } from './mix-pipeline.ts';
export { LateSenderClock, ntpToUnixMs, rtpTimestampDelta, SenderClock, type SenderReport, senderReportOf, unixMsToNtp } from './sender-clock.ts';
export { UserVideoDecoder, type UserVideoDecoderOptions } from './video-decoder.ts';
export { decodeSize, h264SpsSize, keyframeSize, type VideoSize, vp8KeyframeSize } from './video-size.ts';
