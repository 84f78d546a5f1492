export { COLOR, FRAME_CODE, frameCodeFilters, readFrameCode } from './ffmpeg-args.ts';
export { prepareReplay, REPLAY_SECONDS, startSyntheticPublisher, type SyntheticPublisher, type SyntheticPublisherOptions } from './synthetic.ts';
export { startRtpPublisher, type PublishInProcess, type RtpPublisher, type RtpPublisherOptions } from './rtp-publisher.ts';
export { startWhepRelay, type WhepRelayOptions } from './whep-relay.ts';
