export { guardDtlsHandshake, onRemoteDtlsClose, sendCloseNotify } from './dtls-guard.ts';
export { firPacket, onFir } from './fir.ts';
export { gatheringComplete } from './ice-gathering.ts';
export { verifyIceChecks } from './ice-checks.ts';
export { answerIceRestart, completeIceRestart, offerIceRestart } from './ice-restart.ts';
export { loopbackClientConfig, rtxCodec, serverPeerConfig } from './peer-config.ts';
export type { PeerSessionOptions } from './peer-session.ts';
export { PublishSession } from './publish-session.ts';
export { ReceiveFeedback } from './receive-feedback.ts';
export {
  answersKeyframeRequests,
  choosePublishCodec,
  chooseSubscribeCodec,
  codecOf,
  extmapId,
  firstMid,
  iceRestartFrag,
  parseOffer,
  parseSdpFrag,
  restrictOffer,
  type IceGeneration,
  type TrackCodec,
} from './sdp.ts';
export { SenderReportWriter, type ClockMapping } from './sender-reports.ts';
export { SimulcastFanout, SwitchingLayerView } from './simulcast.ts';
export {
  ADAPTATION_RULES,
  adapt,
  adaptedLayer,
  LAYER_CHOICES,
  startAdaptation,
  VIEWER_LAYERS,
  type AdaptationRules,
  type LayerAdaptation,
  type LayerChoice,
  type ViewerLayer,
} from './layer-adaptation.ts';
export { SubscribeSession } from './subscribe-session.ts';
export { ChannelTraffic, type PacketCount, type TrafficDirection } from './traffic.ts';
export { TAP_AUDIO_LEVEL_ID } from './gated-forward.ts';
export { LocalPublish, LOCAL_PUBLISH_CODECS, type LocalPublishOptions } from './local-publish.ts';
export { LocalTap, type LocalTapOptions, type TapPacketListener, type TapSenderReport, type TapSenderReportListener } from './local-tap.ts';
export { GopCache } from './gop-cache.ts';
export { simulcastEncodings } from './werift-hooks.ts';
