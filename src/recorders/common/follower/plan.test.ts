import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { MediaKind, ParticipantRole, Profile } from '../../../channel/index.ts';
import { recorderUpdate, subscriptionRequest } from '../../../recording/dispatch/index.ts';
import { planSubscriptions, type CurrentSubscriptions, type Membership } from './plan.ts';
import { applyLists, createSubscription, kindsFor, wants, type Subscription } from './subscription.ts';

const SELF = 9000;
type RecordingConfig = NonNullable<Parameters<typeof subscriptionRequest>[0]>;

function sub(rc: RecordingConfig = {}): Subscription {
  return createSubscription(subscriptionRequest(rc));
}

/** `uid:kinds[:audience]`, e.g. `201:av`, `202:a`, `203:v:audience`. */
function members(spec: string, profile: Profile | undefined = 'communication'): Membership {
  const participants = spec
    .split(' ')
    .filter(Boolean)
    .map((p) => {
      const [uid, kinds = '', role = 'host'] = p.split(':');
      const tracks = [...kinds].map((k) => ({ kind: (k === 'a' ? 'audio' : 'video') as MediaKind, codec: k === 'a' ? 'audio/opus' : 'video/vp8' }));
      return { uid: Number(uid), role: role as ParticipantRole, joinedAt: 0, tracks, subscribedTo: [] };
    });
  return { profile, participants, selfUid: SELF };
}

function current(links: Record<string, MediaKind[]> = {}, streams: string[] = [], profileWarned = false): CurrentSubscriptions {
  return {
    links: new Map(Object.entries(links)),
    streams: streams.map((s) => ({ uid: s.split('/')[0]!, kind: s.split('/')[1] as MediaKind })),
    profileWarned,
  };
}

interface Row {
  readonly name: string;
  readonly membership: Membership;
  readonly subscription: Subscription;
  readonly profile?: Profile;
  readonly current?: CurrentSubscriptions;
  readonly connect?: string[];
  readonly drop?: string[];
  readonly endStreams?: string[];
  readonly idle: boolean;
  readonly warns?: boolean;
}

const rows: Row[] = [
  { name: 'empty channel: idle', membership: members('', undefined), subscription: sub(), idle: true },
  { name: 'only the recorder itself: idle', membership: members(`${SELF}:av`), subscription: sub(), idle: true },
  { name: 'a publisher: connect with both kinds', membership: members('201:av'), subscription: sub(), connect: ['201:audio,video'], idle: false },
  { name: 'joined but not publishing: not idle, nothing to connect', membership: members('201:'), subscription: sub(), idle: false },
  { name: 'already linked: nothing to do', membership: members('201:av'), subscription: sub(), current: current({ 201: ['audio', 'video'] }), idle: false },
  {
    name: 'published kinds changed: drop and connect again',
    membership: members('201:av'),
    subscription: sub(),
    current: current({ 201: ['audio'] }),
    drop: ['201'],
    connect: ['201:audio,video'],
    idle: false,
  },
  { name: 'left: dropped', membership: members('202:a'), subscription: sub(), current: current({ 201: ['audio'], 202: ['audio'] }), drop: ['201'], idle: false },
  { name: 'streamTypes 0: audio only', membership: members('201:av'), subscription: sub({ streamTypes: 0 }), connect: ['201:audio'], idle: false },
  { name: 'streamTypes 1: a user publishing audio only is not connected', membership: members('201:a'), subscription: sub({ streamTypes: 1 }), idle: false },
  {
    name: 'allow list: others not connected',
    membership: members('201:av 202:av'),
    subscription: sub({ subscribeAudioUids: ['201'], subscribeVideoUids: ['201'] }),
    connect: ['201:audio,video'],
    idle: false,
  },
  {
    name: 'deny list on one kind: the other kind still selects, all recordable kinds are received',
    membership: members('201:av 202:av'),
    subscription: sub({ unsubscribeAudioUids: ['202'], unsubscribeVideoUids: [] }),
    connect: ['201:audio,video', '202:audio,video'],
    idle: false,
  },
  {
    name: 'lists for audio only: no video is subscribed',
    membership: members('201:av 202:v'),
    subscription: sub({ subscribeAudioUids: ['201'] }),
    connect: ['201:audio,video'],
    idle: false,
  },
  {
    name: 'lists for video only: no audio is subscribed',
    membership: members('201:a 202:av'),
    subscription: sub({ unsubscribeVideoUids: ['201'] }),
    connect: ['202:audio,video'],
    idle: false,
  },
  {
    name: '#allstream# in subscribe lists: everybody',
    membership: members('201:av 202:av'),
    subscription: sub({ subscribeAudioUids: ['#allstream#'], subscribeVideoUids: ['#allstream#'] }),
    connect: ['201:audio,video', '202:audio,video'],
    idle: false,
  },
  {
    name: '#allstream# in an unsubscribe list: nobody of that kind',
    membership: members('201:v'),
    subscription: sub({ subscribeAudioUids: ['#allstream#'], unsubscribeVideoUids: ['#allstream#'] }),
    idle: false,
  },
  {
    name: 'update unselects audio of a linked user: its audio stream ends, the link stays',
    membership: members('201:av'),
    subscription: applyLists(sub(), recorderUpdate({ streamSubscribe: { audioUidList: { unsubscribeAudioUids: ['201'] } } }).lists!),
    current: current({ 201: ['audio', 'video'] }, ['201/audio', '201/video']),
    endStreams: ['201/audio'],
    idle: false,
  },
  {
    name: 'update unselects every kind of a user: dropped, no separate stream ends',
    membership: members('201:av'),
    subscription: applyLists(sub(), recorderUpdate({ streamSubscribe: { audioUidList: { subscribeAudioUids: [] }, videoUidList: { subscribeVideoUids: [] } } }).lists!),
    current: current({ 201: ['audio', 'video'] }, ['201/audio', '201/video']),
    drop: ['201'],
    idle: false,
  },
  { name: 'live: audience only is idle', membership: members('201::audience', 'live'), subscription: sub(), profile: 'live', idle: true },
  { name: 'live: a host is recorded', membership: members('201:av', 'live'), subscription: sub(), profile: 'live', connect: ['201:audio,video'], idle: false },
  { name: 'wrong profile: idle, warn, record nothing', membership: members('201:av', 'communication'), subscription: sub(), profile: 'live', idle: true, warns: true },
  {
    name: 'wrong profile, already warned: no second warning, links dropped',
    membership: members('201:av', 'communication'),
    subscription: sub(),
    profile: 'live',
    current: current({ 201: ['audio', 'video'] }, [], true),
    drop: ['201'],
    idle: true,
  },
];

for (const r of rows) {
  test(`planSubscriptions: ${r.name}`, () => {
    const plan = planSubscriptions(r.membership, r.subscription, r.profile ?? 'communication', r.current ?? current());
    assert.deepEqual(plan.connect.map((c) => `${c.uid}:${c.kinds.join()}`), r.connect ?? []);
    assert.deepEqual(plan.drop, r.drop ?? []);
    assert.deepEqual(plan.endStreams.map((t) => `${t.uid}/${t.kind}`), r.endStreams ?? []);
    assert.equal(plan.idle, r.idle);
    if (r.warns) assert.match(plan.profileWarning ?? '', /profile is communication but channelType asks for live/);
    else assert.equal(plan.profileWarning, undefined);
  });
}

test('subscription lists, streamTypes and live updates', () => {
  const all = sub();
  assert.ok(wants(all, 'audio', '5') && wants(all, 'video', '5'));
  assert.deepEqual(kindsFor(sub({ streamTypes: 0 }), '5', ['audio', 'video']), ['audio']);
  const lists = sub({ subscribeAudioUids: ['1', '2'], unsubscribeVideoUids: ['2'] });
  assert.deepEqual(kindsFor(lists, '1', ['audio', 'video']), ['audio', 'video']);
  assert.deepEqual(kindsFor(lists, '2', ['audio', 'video']), ['audio']);
  assert.deepEqual(kindsFor(lists, '3', ['audio', 'video']), ['video']);
  const upd = applyLists(lists, recorderUpdate({ streamSubscribe: { audioUidList: { unsubscribeAudioUids: ['1'] } } }).lists!);
  assert.ok(!wants(upd, 'audio', '1') && wants(upd, 'audio', '3') && !wants(upd, 'video', '2'), 'video lists unchanged');
  const videoOff = sub({ streamTypes: 0 });
  assert.ok(!wants(applyLists(videoOff, recorderUpdate({ streamSubscribe: { videoUidList: { subscribeVideoUids: ['1'] } } }).lists!), 'video', '1'), 'streamTypes wins over update');
  // Off for lack of a list is not off for good: an update naming the kind turns it on.
  const audioListed = sub({ subscribeAudioUids: ['1'] });
  assert.ok(!wants(audioListed, 'video', '1'));
  assert.ok(wants(applyLists(audioListed, recorderUpdate({ streamSubscribe: { videoUidList: { subscribeVideoUids: ['1'] } } }).lists!), 'video', '1'));
});

test('subscription lists: ["#allstream#"] names every user, in subscribe and unsubscribe lists', () => {
  const all = sub({ subscribeAudioUids: ['#allstream#'], subscribeVideoUids: ['#allstream#'] });
  assert.deepEqual(kindsFor(all, '42', ['audio', 'video']), ['audio', 'video']);
  const noVideo = sub({ subscribeAudioUids: ['#allstream#'], unsubscribeVideoUids: ['#allstream#'] });
  assert.deepEqual(kindsFor(noVideo, '42', ['audio', 'video']), ['audio']);
  const upd = applyLists(sub({ subscribeVideoUids: ['1'] }), recorderUpdate({ streamSubscribe: { videoUidList: { subscribeVideoUids: ['#allstream#'] } } }).lists!);
  assert.deepEqual(kindsFor(upd, '7', ['video']), ['video']);
  assert.deepEqual(recorderUpdate({ streamSubscribe: { audioUidList: {} } }).lists, { audio: { kind: 'everyone' } }, 'an empty list object selects everybody');
});
