/**
 * FLV (Adobe's Flash Video file format, version 10.1, annex E): the container RTMP's audio, video and data messages
 * map to one to one. The RTMP listener hands a publisher's media to ffmpeg as an FLV stream on its stdin.
 */
export const FLV_TAG = Object.freeze({ audio: 8, video: 9, script: 18 });

/** The file header (audio and video present) and the first, empty, previous-tag size. */
export function flvHeader(): Buffer {
  return Buffer.from([0x46, 0x4c, 0x56, 0x01, 0x05, 0, 0, 0, 9, 0, 0, 0, 0]);
}

/** One tag: its 11-byte header, the data, and the previous-tag size that follows every tag. */
export function flvTag(type: number, timestampMs: number, data: Buffer): Buffer {
  const head = Buffer.alloc(11);
  head[0] = type;
  head.writeUIntBE(data.length, 1, 3);
  const ts = timestampMs >>> 0;
  head.writeUIntBE(ts & 0xffffff, 4, 3);
  head[7] = (ts >>> 24) & 0xff;
  const tail = Buffer.alloc(4);
  tail.writeUInt32BE(11 + data.length);
  return Buffer.concat([head, data, tail]);
}
