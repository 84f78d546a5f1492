export { startLoopbackStun, type LoopbackStun } from './stun-responder.ts';
export { whepSubscribe, type WhepSubscriber, type WhepSubscribeOptions } from './whep-client.ts';
export { whipPublish, type RtpWriter, type WhipPublisher, type WhipPublishOptions } from './whip-client.ts';
export { WhipHttpError } from './whip-http.ts';
