import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChunkReader, encodeMessage, MSG } from './chunks.ts';

test('Set Chunk Size applies to the next chunk of the same read (a client sends it with connect in one segment)', () => {
  const size = Buffer.alloc(4);
  size.writeUInt32BE(4096);
  const big = Buffer.alloc(1000, 1);
  const bytes = Buffer.concat([
    encodeMessage(2, { type: MSG.setChunkSize, streamId: 0, timestamp: 0, payload: size }, 4096),
    encodeMessage(3, { type: MSG.commandAmf0, streamId: 0, timestamp: 0, payload: big }, 4096),
  ]);
  const reader = new ChunkReader();
  const messages = reader.push(bytes);
  assert.deepEqual(messages.map((m) => [m.type, m.payload.length]), [[MSG.setChunkSize, 4], [MSG.commandAmf0, 1000]]);
  assert.equal(reader.chunkSize, 4096);
  const zero = Buffer.alloc(4);
  assert.throws(() => new ChunkReader().push(encodeMessage(2, { type: MSG.setChunkSize, streamId: 0, timestamp: 0, payload: zero }, 128)), /chunk size 0/);
});
