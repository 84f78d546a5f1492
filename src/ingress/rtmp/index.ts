// RTMP publishing (reeltime's own listener: handshake, chunk stream, AMF0 commands, FLV out), docs/ingest.md.
export { startRtmpServer, type RtmpServer, type RtmpServerOptions } from './server.ts';
export type { PublishDecision, PublishSink } from './session.ts';
export { FlvKinds, type FlvKindsSeen } from './flv-kinds.ts';
export { HeldFlv } from './held-flv.ts';
