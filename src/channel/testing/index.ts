// Test helpers of the channel: decoding a received frame's colour, reading the membership event stream, feeding a
// publisher synthetic VP8.
export { decodePixel, firstFramePackets, frameFile } from './decode.ts';
export { readSse, type SseMessage, type SseReader } from './sse.ts';
export { feedVp8Keyframes } from './vp8-feed.ts';
