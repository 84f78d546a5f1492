// Test helpers of the channel: decoding a received frame's colour, reading the membership event stream.
export { decodePixel, firstFramePackets, frameFile } from './decode.ts';
export { readSse, type SseMessage, type SseReader } from './sse.ts';
