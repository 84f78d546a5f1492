import assert from 'node:assert/strict';
import { test } from 'node:test';
import { waitUntil } from '../../testing/index.ts';
import { CdnPusher, type PushStatusChange } from './index.ts';

test('a push target that is not RTMP is refused at once; one without a stream key is reported lost, no pusher started', async () => {
  assert.throws(() => new CdnPusher({ rtmpUrl: 'http://cdn.example/live/key', onStatus: () => undefined }), /rtmp:\/\/ or rtmps:\/\//);
  const statuses: PushStatusChange[] = [];
  const pusher = new CdnPusher({ rtmpUrl: 'rtmp://127.0.0.1:1935/only-a-key', onStatus: (c) => void statuses.push(c) });
  assert.throws(() => pusher.setTarget('ftp://cdn.example/live/key'), /rtmp:\/\/ or rtmps:\/\//);
  try {
    pusher.beginStream();
    const lost = await waitUntil(() => statuses.find((c) => c.status === 'disconnected'), { what: 'the push reported lost' });
    assert.match(lost.message ?? '', /application and a stream key/);
    assert.equal(pusher.pid, undefined);
  } finally {
    await pusher.stop();
  }
});
