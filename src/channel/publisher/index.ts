export { COLOR, FRAME_CODE } from './ffmpeg-args.ts';
export { startSyntheticPublisher, type SyntheticPublisher, type SyntheticPublisherOptions } from './synthetic.ts';
