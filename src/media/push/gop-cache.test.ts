// GopCache on a real MPEG-TS stream from ffmpeg: a pusher handed its snapshot starts on a keyframe with both streams.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runChild } from '../../process/index.ts';
import { FFPROBE_BIN, runFfmpeg } from '../ffmpeg.ts';
import { GopCache } from './gop-cache.ts';
import { TS_PACKET_BYTES } from './pusher-args.ts';

test('the snapshot starts at the latest keyframe, with PAT/PMT, video and audio', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gop-cache-'));
  try {
    const ts = join(dir, 'in.ts');
    // 4.5 s at 15 fps, a keyframe every second: the snapshot after all of it holds the last 0.5 s.
    await runFfmpeg(['-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=15', '-f', 'lavfi', '-i', 'sine=f=440:sample_rate=48000',
      '-t', '4.5', '-c:v', 'libx264', '-preset', 'veryfast', '-g', '15', '-sc_threshold', '0', '-c:a', 'aac', '-f', 'mpegts', ts]);
    const stream = readFileSync(ts);
    assert.equal(stream.length % TS_PACKET_BYTES, 0);
    const cache = new GopCache();
    // Fed in uneven whole-packet chunks, as the pusher does.
    for (let at = 0, n = 1; at < stream.length; at += n * TS_PACKET_BYTES, n = (n % 7) + 1) cache.push(stream.subarray(at, at + n * TS_PACKET_BYTES));
    const snap = cache.snapshot();
    assert.ok(snap.length > 0 && snap.length < stream.length / 3, `one GOP, not the stream (${snap.length} of ${stream.length} bytes)`);
    const out = join(dir, 'snap.ts');
    writeFileSync(out, snap);
    const frames = await runChild(FFPROBE_BIN, ['-v', 'error', '-select_streams', 'v', '-show_entries', 'frame=key_frame,pts_time', '-of', 'csv=p=0', out], { timeoutMs: 20_000 });
    const lines = frames.stdout.toString().trim().split('\n');
    assert.equal(lines[0]!.split(',')[0], '1', `the first video frame is a keyframe: ${lines[0]}`);
    assert.ok(lines.length >= 6 && lines.length <= 9, `about half a second of video: ${lines.length} frames`);
    const streams = await runChild(FFPROBE_BIN, ['-v', 'error', '-show_entries', 'stream=codec_name', '-of', 'csv=p=0', out], { timeoutMs: 20_000 });
    assert.deepEqual([...new Set(streams.stdout.toString().split('\n').filter((l) => l.trim() !== ''))].sort(), ['aac', 'h264']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
