import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PUSH_INPUT_FD, PUSH_OUTPUT_FD, pusherArgs } from './pusher-args.ts';

test('the pusher ffmpeg copies TS from one pipe to FLV on another and is never told the target', () => {
  const args = pusherArgs();
  assert.equal(args[args.indexOf('-i') + 1], `pipe:${PUSH_INPUT_FD}`);
  assert.equal(args[args.indexOf('-c') + 1], 'copy');
  assert.equal(args[args.indexOf('-f', args.indexOf('-c')) + 1], 'flv');
  assert.equal(args.at(-1), `pipe:${PUSH_OUTPUT_FD}`);
  assert.ok(!args.some((a) => /rtmp/i.test(a)), 'no URL, no -rtmp_* option');
});
