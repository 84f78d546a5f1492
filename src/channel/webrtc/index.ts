export { tolerateRepeatedHelloVerify } from './dtls-guard.ts';
export { gatheringComplete } from './ice-gathering.ts';
export { loopbackClientConfig, serverPeerConfig } from './peer-config.ts';
export type { PeerSessionOptions } from './peer-session.ts';
export { PublishSession } from './publish-session.ts';
export { choosePublishCodec, chooseSubscribeCodec, codecOf, parseOffer, parseSdpFrag, restrictOffer, type TrackCodec } from './sdp.ts';
export { SenderReportWriter, type ClockMapping } from './sender-reports.ts';
export { SubscribeSession } from './subscribe-session.ts';
