// The CDN push as a process of its own: any encoder's MPEG-TS stream copied to one RTMP(S) target.
export { CdnPusher, type CdnPusherOptions, type PushStatus, type PushStatusChange } from './cdn-pusher.ts';
export { isRtmpUrl } from './pusher-args.ts';
