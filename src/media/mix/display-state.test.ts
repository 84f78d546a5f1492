import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NEVER_SENT, type AvailableImages, userDisplayAt, userLeft, videoFrameArrived } from './display-state.ts';
import { EMPTY_ROSTER, rosterJoin, rosterLayoutUsers, rosterLeave, rosterPrune, rosterVideoFrame } from './roster.ts';

const NONE: AvailableImages = { own: false, defaultUser: false, canvas: false };
const kindAt = (state: Parameters<typeof userDisplayAt>[0], now: number, images: AvailableImages = NONE) => {
  const d = userDisplayAt(state, now, images);
  return d.kind === 'user-image' ? `user-image:${d.image}` : d.kind;
};

test('video stopped under 3.5 s shows the last frame; from 3.5 s the image chain applies', () => {
  const s = videoFrameArrived(NEVER_SENT, 10_000);
  assert.equal(kindAt(s, 10_000), 'frame');
  assert.equal(kindAt(s, 13_499, { own: true, defaultUser: true, canvas: true }), 'frame');
  assert.equal(kindAt(s, 13_500, { own: true, defaultUser: true, canvas: true }), 'user-image:own');
  assert.equal(kindAt(s, 13_500, { own: false, defaultUser: true, canvas: true }), 'user-image:default');
  assert.equal(kindAt(s, 13_500, { own: false, defaultUser: false, canvas: true }), 'canvas-image');
  assert.equal(kindAt(s, 60_000, NONE), 'frame', 'no image configured: the last frame stays');
});

test('a new frame after a stop shows video again', () => {
  const s = videoFrameArrived(videoFrameArrived(NEVER_SENT, 0), 9_000);
  assert.equal(kindAt(s, 9_100, { own: true, defaultUser: false, canvas: false }), 'frame');
  assert.equal(videoFrameArrived(s, 8_000), s, 'an older timestamp changes nothing');
});

test('a user who never sent video: own or default image, else no picture (the region decides)', () => {
  assert.equal(kindAt(NEVER_SENT, 0), 'no-picture');
  assert.equal(kindAt(NEVER_SENT, 0, { own: false, defaultUser: true, canvas: true }), 'user-image:default');
  assert.equal(kindAt(NEVER_SENT, 0, { own: true, defaultUser: true, canvas: true }), 'user-image:own');
  assert.equal(kindAt(NEVER_SENT, 0, { own: false, defaultUser: false, canvas: true }), 'no-picture');
});

test('a user who left shows the canvas colour for 3.5 s, then is gone; later frames are ignored', () => {
  const s = userLeft(videoFrameArrived(NEVER_SENT, 0), 1_000);
  assert.equal(kindAt(s, 1_000, { own: true, defaultUser: true, canvas: true }), 'background-colour');
  assert.equal(kindAt(s, 4_499), 'background-colour');
  assert.equal(kindAt(s, 4_500), 'gone');
  assert.equal(videoFrameArrived(s, 2_000), s);
  assert.equal(userLeft(s, 3_000), s);
});

test('roster: join order, leave keeps the slot 3.5 s, then everyone moves up; a rejoin goes to the end', () => {
  let r = EMPTY_ROSTER;
  for (const uid of ['a', 'b', 'c']) r = rosterJoin(r, uid);
  assert.equal(rosterJoin(r, 'b'), r, 'joining twice changes nothing');
  r = rosterVideoFrame(r, 'a', 100);
  assert.deepEqual(r[0]!.video, { kind: 'sending', lastFrameAtMs: 100 });
  assert.equal(rosterVideoFrame(r, 'zz', 100), r, 'unknown users are ignored');
  r = rosterLeave(r, 'a', 1_000);
  assert.deepEqual(rosterLayoutUsers(r, 4_499), ['a', 'b', 'c']);
  assert.deepEqual(rosterLayoutUsers(r, 4_500), ['b', 'c']);
  assert.equal(rosterPrune(r, 4_000), r);
  assert.deepEqual(rosterPrune(r, 4_500).map((e) => e.uid), ['b', 'c']);
  r = rosterJoin(r, 'a');
  assert.deepEqual(rosterLayoutUsers(r, 2_000), ['b', 'c', 'a']);
  assert.equal(r[2]!.video.kind, 'never-sent');
});
