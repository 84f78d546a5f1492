import assert from 'node:assert/strict';
import { test } from 'node:test';
import { explainIngestError, FIRST_PLAN, ingestFfmpegArgs, ingestPictureEnd, kindsPresent, nextPlan, sourceScript } from './pipeline.ts';

test('ingest ffmpeg: an output per kind asked for; a source without one of them is named from ffmpeg\'s message', () => {
  const both = ingestFfmpegArgs(5000, 5002, { kind: 'rtsp', url: 'rtsp://192.0.2.1/cam', transport: 'tcp' });
  assert.deepEqual(both.filter((a) => a.startsWith('rtp://')), ['rtp://127.0.0.1:5000?rtcpport=5000&pkt_size=1200', 'rtp://127.0.0.1:5002?rtcpport=5002&pkt_size=1200']);
  const video = ingestFfmpegArgs(5000, 5002, { kind: 'rtsp', url: 'rtsp://192.0.2.1/cam', transport: 'tcp' }, { kinds: ['video'], video: 'copy' });
  assert.deepEqual(video.filter((a) => a.startsWith('rtp://')), ['rtp://127.0.0.1:5000?rtcpport=5000&pkt_size=1200']);
  assert.ok(!video.includes('libopus') && !video.includes('0:a:0'));
  const audio = ingestFfmpegArgs(5000, 5002, { kind: 'flv' }, { kinds: ['audio'], video: 'copy' });
  assert.ok(!audio.includes('0:v:0') && audio.includes('0:a:0'));

  const noAudio = "Stream map '0:a:0' matches no streams.\nTo ignore this, add a trailing '?' to the map.";
  assert.deepEqual(kindsPresent(noAudio, ['audio', 'video']), ['video']);
  assert.deepEqual(kindsPresent("Stream map '0:v:0' matches no streams.", ['audio', 'video']), ['audio']);
  assert.equal(kindsPresent(noAudio, ['audio']), undefined, 'nothing left to publish');
  assert.equal(kindsPresent('Connection refused', ['audio', 'video']), undefined);
  assert.match(explainIngestError("Codec 'vp8' (139) is not supported by the bitstream filter 'h264_metadata'"), /^video: the source sends vp8, not H.264/);
});

test('ingest ffmpeg: an H.265 source is started again with its video re-encoded to H.264; other codecs are refused by name', () => {
  const hevc = "Codec 'hevc' (173) is not supported by the bitstream filter 'h264_metadata'";
  assert.deepEqual(nextPlan(hevc, FIRST_PLAN), { kinds: ['audio', 'video'], video: 'transcode' });
  assert.equal(nextPlan(hevc, { kinds: ['video'], video: 'transcode' }), undefined, 'tried already');
  assert.equal(nextPlan("Codec 'vp8' (139) is not supported by the bitstream filter 'h264_metadata'", FIRST_PLAN), undefined);
  assert.deepEqual(nextPlan("Stream map '0:a:0' matches no streams.", { kinds: ['audio', 'video'], video: 'transcode' }), { kinds: ['video'], video: 'transcode' }, 'an H.265 camera without a microphone');
  const args = ingestFfmpegArgs(5000, 5002, { kind: 'rtsp', url: 'rtsp://192.0.2.1/cam', transport: 'tcp' }, { kinds: ['audio', 'video'], video: 'transcode' });
  const v = args.slice(args.indexOf('0:v:0'), args.indexOf('0:a:0'));
  assert.deepEqual([v[v.indexOf('-c:v') + 1], v[v.indexOf('-profile:v') + 1], v[v.indexOf('-bf') + 1]], ['libx264', 'baseline', '0']);
  assert.ok(!v.includes('h264_metadata,dump_extra=freq=keyframe'), 'no H.264 filter on the H.265 input');
  assert.ok(v.includes('dump_extra=freq=keyframe'), 'parameter sets in band on the encoded output');
});

test('ingest ffmpeg: pictures end at the marker where ffmpeg packetizes whole access units, at the next timestamp for a copied RTSP camera', () => {
  assert.equal(ingestPictureEnd({ kind: 'flv' }, FIRST_PLAN), 'marker');
  assert.equal(ingestPictureEnd({ kind: 'srt-caller', url: 'srt://192.0.2.1:9000' }, FIRST_PLAN), 'marker');
  assert.equal(ingestPictureEnd({ kind: 'rtsp', url: 'rtsp://192.0.2.1/cam', transport: 'udp' }, FIRST_PLAN), 'timestamp');
  assert.equal(ingestPictureEnd({ kind: 'rtsp', url: 'rtsp://192.0.2.1/cam', transport: 'udp' }, { ...FIRST_PLAN, video: 'transcode' }), 'marker', 're-encoded: whole pictures');
});

test('ingest ffmpeg: a source URL with its secrets goes in a concat script on stdin, never in the arguments', () => {
  const srt = { kind: 'srt', host: '127.0.0.1', port: 9000, passphrase: 'listener-secret-1' } as const;
  const rtsp = { kind: 'rtsp', url: "rtsp://viewer:cam'secret@192.0.2.1/cam", transport: 'udp' } as const;
  const caller = { kind: 'srt-caller', url: 'srt://192.0.2.1:9001?passphrase=caller-secret-1' } as const;
  for (const [input, secret] of [[srt, 'listener-secret-1'], [rtsp, "cam'secret"], [caller, 'caller-secret-1']] as const) {
    const args = ingestFfmpegArgs(5000, 5002, input);
    assert.ok(!args.join(' ').includes(secret), args.join(' '));
    assert.deepEqual(args.slice(args.indexOf('-f'), args.indexOf('-i') + 2), ['-f', 'concat', '-safe', '0', '-auto_convert', '0', '-i', 'pipe:0']);
  }
  assert.equal(sourceScript(srt), "ffconcat version 1.0\nfile 'srt://127.0.0.1:9000?mode=listener&passphrase=listener-secret-1&pbkeylen=16'\n");
  // A quote in the URL is closed, escaped and reopened; the RTSP options ride as the file's options.
  assert.equal(sourceScript(rtsp), "ffconcat version 1.0\nfile 'rtsp://viewer:cam'\\''secret@192.0.2.1/cam'\noption rtsp_transport udp\noption timeout 10000000\n");
  assert.equal(sourceScript(caller), "ffconcat version 1.0\nfile 'srt://192.0.2.1:9001?passphrase=caller-secret-1&mode=caller'\n");
  assert.equal(sourceScript({ kind: 'flv' }), undefined);
  // Each kind's protocols only: a camera URL cannot make ffmpeg read a file.
  assert.equal(ingestFfmpegArgs(5000, 5002, rtsp)[ingestFfmpegArgs(5000, 5002, rtsp).indexOf('-protocol_whitelist') + 1], 'pipe,rtsp,rtsps,rtp,tcp,udp,tls');
  assert.equal(ingestFfmpegArgs(5000, 5002, srt)[ingestFfmpegArgs(5000, 5002, srt).indexOf('-protocol_whitelist') + 1], 'pipe,srt,udp');
});
