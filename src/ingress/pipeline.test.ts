import assert from 'node:assert/strict';
import { test } from 'node:test';
import { explainIngestError, ingestFfmpegArgs, kindsPresent } from './pipeline.ts';

test('ingest ffmpeg: an output per kind asked for; a source without one of them is named from ffmpeg\'s message', () => {
  const both = ingestFfmpegArgs(5000, 5002, { kind: 'rtsp', url: 'rtsp://192.0.2.1/cam', transport: 'tcp' });
  assert.deepEqual(both.filter((a) => a.startsWith('rtp://')), ['rtp://127.0.0.1:5000?rtcpport=5000&pkt_size=1200', 'rtp://127.0.0.1:5002?rtcpport=5002&pkt_size=1200']);
  const video = ingestFfmpegArgs(5000, 5002, { kind: 'rtsp', url: 'rtsp://192.0.2.1/cam', transport: 'tcp' }, ['video']);
  assert.deepEqual(video.filter((a) => a.startsWith('rtp://')), ['rtp://127.0.0.1:5000?rtcpport=5000&pkt_size=1200']);
  assert.ok(!video.includes('libopus') && !video.includes('0:a:0'));
  const audio = ingestFfmpegArgs(5000, 5002, { kind: 'flv' }, ['audio']);
  assert.ok(!audio.includes('0:v:0') && audio.includes('0:a:0'));

  const noAudio = "Stream map '0:a:0' matches no streams.\nTo ignore this, add a trailing '?' to the map.";
  assert.deepEqual(kindsPresent(noAudio, ['audio', 'video']), ['video']);
  assert.deepEqual(kindsPresent("Stream map '0:v:0' matches no streams.", ['audio', 'video']), ['audio']);
  assert.equal(kindsPresent(noAudio, ['audio']), undefined, 'nothing left to publish');
  assert.equal(kindsPresent('Connection refused', ['audio', 'video']), undefined);
  assert.match(explainIngestError("Codec 'vp8' (139) is not supported by the bitstream filter 'h264_metadata'"), /^video: the source sends vp8, not H.264/);
});
