// RTMP's wire format (AMF0 values, the chunk stream, both handshake forms, FLV tags in and out, the publish
// commands; pure) and a publishing client. The ingress listener (ingress/rtmp) and the CDN push (media/push) use it.
export { Amf0Error, decodeAmf0, encodeAmf0, type Amf0Object, type Amf0Value } from './amf0.ts';
export { ChunkReader, encodeMessage, MSG, RtmpProtocolError, type RtmpMessage } from './chunks.ts';
export { RtmpPublisher, type PublisherEnd, type RtmpPublisherOptions } from './client.ts';
export { FLV_TAG, FlvFormatError, flvHeader, FlvReader, flvTag, type FlvTagRead } from './flv.ts';
export { answerHandshake, HANDSHAKE_SIZE } from './handshake.ts';
export { publishTarget, type PublishTarget } from './publish.ts';
