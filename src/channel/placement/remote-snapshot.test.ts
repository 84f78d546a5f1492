import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChannelEvent, ChannelSnapshot, TrackInfo } from '../membership/index.ts';
import { applyChannelEvent, emptySnapshot, snapshotChanges } from './remote-snapshot.ts';

const A: TrackInfo = { kind: 'audio', codec: 'audio/opus' };
const V: TrackInfo = { kind: 'video', codec: 'video/h264' };
const ev = (kind: ChannelEvent['kind'], uid: number, tracks: TrackInfo[] = []): ChannelEvent => ({
  kind,
  seq: 1,
  appId: 'app',
  cname: 'c',
  uid,
  role: 'host',
  time: 5,
  tracks,
});
const brief = (s: ChannelSnapshot) => ({ profile: s.profile, people: s.participants.map((p) => `${p.uid}:${p.tracks.map((t) => t.kind[0]).join('')}`) });

test('events applied to a followed snapshot: join, publish, unpublish of one kind, leave; the profile comes with them', () => {
  let s = emptySnapshot('app', 'c');
  s = applyChannelEvent(s, ev('join', 1), 'live');
  assert.deepEqual(brief(s), { profile: 'live', people: ['1:'] });
  s = applyChannelEvent(s, ev('publish', 1, [A, V]), 'live');
  s = applyChannelEvent(s, ev('publish', 1, [A, V]), 'live');
  assert.deepEqual(brief(s), { profile: 'live', people: ['1:av'] }, 'an event applied twice changes nothing');
  s = applyChannelEvent(s, ev('unpublish', 1, [V]), 'live');
  assert.deepEqual(brief(s), { profile: 'live', people: ['1:a'] });
  s = applyChannelEvent(s, ev('leave', 1), 'live');
  assert.deepEqual(brief(s), { profile: undefined, people: [] }, 'an empty channel has no profile');
  assert.deepEqual(brief(applyChannelEvent(s, ev('unpublish', 9, [A]), undefined)), brief(s), 'unpublish of a stranger: nothing');
});

test('changes between snapshots: the gone leave (after unpublishing), the new join then publish, track changes', () => {
  const snap = (people: [number, TrackInfo[]][]): ChannelSnapshot => ({
    appId: 'app',
    cname: 'c',
    profile: people.length ? 'communication' : undefined,
    participants: people.map(([uid, tracks]) => ({ uid, role: 'host', joinedAt: 1, tracks, subscribedTo: [] })),
  });
  const before = snap([
    [1, [A, V]],
    [2, [A]],
    [3, []],
  ]);
  const after = snap([
    [2, [A, V]],
    [3, []],
    [4, [V]],
  ]);
  const got = snapshotChanges(before, after, 9).map((e) => `${e.kind} ${e.uid} ${e.tracks.map((t) => t.kind).join('+')}${e.reason ? ` (${e.reason})` : ''}`);
  assert.deepEqual(got, ['unpublish 1 audio+video (connection_failed)', 'leave 1  (connection_failed)', 'publish 2 video', 'join 4 ', 'publish 4 video']);
  assert.deepEqual(snapshotChanges(after, after, 9), []);
  // Lost owner: everyone leaves.
  assert.deepEqual(
    snapshotChanges(after, emptySnapshot('app', 'c'), 9).map((e) => `${e.kind} ${e.uid}`),
    ['unpublish 2', 'leave 2', 'leave 3', 'unpublish 4', 'leave 4'],
  );
});
