import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeAmf0, encodeAmf0 } from './amf0.ts';
import { MSG, type RtmpMessage } from './chunks.ts';
import { FlvReader, flvHeader, flvTag } from './flv.ts';
import { mediaMessage, openPublish, publishStep, publishTarget, type PublishState } from './publish.ts';

test('publishTarget: the last path segment (and the query) is the stream key, the rest the application', () => {
  assert.deepEqual(publishTarget('rtmp://a.rtmp.youtube.com/live2/abcd-efgh'), {
    secure: false, host: 'a.rtmp.youtube.com', port: 1935, app: 'live2', streamName: 'abcd-efgh', tcUrl: 'rtmp://a.rtmp.youtube.com/live2',
  });
  assert.deepEqual(publishTarget('rtmps://live.example.com/app/inst/key?token=a%7Cb'), {
    secure: true, host: 'live.example.com', port: 443, app: 'app/inst', streamName: 'key?token=a%7Cb', tcUrl: 'rtmps://live.example.com/app/inst',
  });
  assert.equal(publishTarget('rtmp://[2001:db8::1]:1936/live/k').host, '2001:db8::1');
  assert.equal(publishTarget('rtmp://[2001:db8::1]:1936/live/k').port, 1936);
  assert.equal(publishTarget('rtmp://[2001:db8::1]:1936/live/k').tcUrl, 'rtmp://[2001:db8::1]:1936/live');
  for (const bad of ['http://x/live/k', 'rtmp://x/live/', 'rtmp://x/k', 'rtmp://x', 'not a url']) assert.throws(() => publishTarget(bad), RangeError, bad);
});

const command = (values: Parameters<typeof encodeAmf0>[0], streamId = 0): RtmpMessage => ({ type: MSG.commandAmf0, streamId, timestamp: 0, payload: encodeAmf0(values) });
const names = (step: { send: readonly { message: RtmpMessage }[] }) => step.send.map((o) => (o.message.type === MSG.commandAmf0 ? decodeAmf0(o.message.payload)[0] : o.message.type));

test('the publish exchange: connect, createStream, publish, Publish.Start; a refusal keeps the stream key out of its words', () => {
  const target = publishTarget('rtmp://cdn.example/live/sk-secret');
  const open = openPublish(target);
  assert.deepEqual(names(open), [MSG.setChunkSize, 'connect']);
  assert.deepEqual(decodeAmf0(open.send[1]!.message.payload)[2], { app: 'live', type: 'nonprivate', flashVer: 'FMLE/3.0 (compatible; reeltime)', tcUrl: 'rtmp://cdn.example/live' });
  let state: PublishState = open.state;
  const connected = publishStep(state, target, command(['_result', 1, null, { code: 'NetConnection.Connect.Success' }]));
  assert.deepEqual(names(connected), ['releaseStream', 'FCPublish', 'createStream']);
  state = publishStep(connected.state, target, command(['_result', 4, null, 1])).state;
  assert.deepEqual(state, { kind: 'publishing-requested', streamId: 1 });
  const ping = publishStep(state, target, { type: MSG.userControl, streamId: 0, timestamp: 0, payload: Buffer.from([0, 6, 0, 0, 1, 2]) });
  assert.deepEqual([...ping.send[0]!.message.payload], [0, 7, 0, 0, 1, 2], 'a ping is answered with its timestamp');
  assert.deepEqual(publishStep(state, target, command(['onStatus', 0, null, { level: 'status', code: 'NetStream.Publish.Start' }], 1)).state, { kind: 'published', streamId: 1 });
  const refused = publishStep(state, target, command(['onStatus', 0, null, { level: 'error', code: 'NetStream.Publish.BadName', description: 'sk-secret is already publishing' }], 1));
  assert.deepEqual(refused.state, { kind: 'refused', reason: 'NetStream.Publish.BadName: [redacted] is already publishing' });
  assert.deepEqual(publishStep({ kind: 'connecting' }, target, command(['_error', 1, null, { code: 'NetConnection.Connect.Rejected' }])).state, {
    kind: 'refused',
    reason: 'NetConnection.Connect.Rejected',
  });
});

test('FLV in, RTMP messages out: tags read across any split; script data goes behind @setDataFrame', () => {
  const stream = Buffer.concat([flvHeader(), flvTag(18, 0, encodeAmf0(['onMetaData', { width: 320 }])), flvTag(9, 40, Buffer.from([0x17, 0])), flvTag(8, 0x1234567, Buffer.from([0xaf, 1, 2]))]);
  for (const cut of [1, 5, 13, 20, stream.length - 1]) {
    const r = new FlvReader();
    const tags = [...r.push(stream.subarray(0, cut)), ...r.push(stream.subarray(cut))];
    assert.deepEqual(tags.map((t) => [t.type, t.timestamp, t.data.length]), [[18, 0, encodeAmf0(['onMetaData', { width: 320 }]).length], [9, 40, 2], [8, 0x1234567, 3]], `cut at ${cut}`);
    assert.deepEqual(decodeAmf0(mediaMessage(1, tags[0]!)!.message.payload), ['@setDataFrame', 'onMetaData', { width: 320 }]);
    assert.equal(mediaMessage(1, tags[2]!)!.message.timestamp, 0x1234567);
  }
  assert.throws(() => new FlvReader().push(Buffer.from('GIF89a-not-flv')), /FLV/);
});
