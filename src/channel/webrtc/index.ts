export { tolerateRepeatedHelloVerify } from './dtls-guard.ts';
export { gatheringComplete } from './ice-gathering.ts';
export { loopbackClientConfig, serverPeerConfig } from './peer-config.ts';
export type { PeerSessionOptions } from './peer-session.ts';
export { PublishSession } from './publish-session.ts';
export { choosePublishCodec, chooseSubscribeCodec, codecOf, parseOffer, parseSdpFrag, restrictOffer, type TrackCodec } from './sdp.ts';
export { SubscribeSession } from './subscribe-session.ts';
export { ChannelTraffic, type PacketCount, type TrafficDirection } from './traffic.ts';
export { LocalTap, type LocalTapOptions, type TapPacketListener } from './local-tap.ts';
