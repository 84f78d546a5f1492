import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pinnedPushTarget, pusherArgs } from './pusher-args.ts';

test('pinnedPushTarget hands ffmpeg the approved address and keeps the host name in tcUrl (rtmp); rtmps keeps its name', () => {
  assert.deepEqual(pinnedPushTarget('rtmp://live.example.com/app/key', '93.184.216.34'), {
    url: 'rtmp://93.184.216.34/app/key',
    tcUrl: 'rtmp://live.example.com/app',
  });
  assert.deepEqual(pinnedPushTarget('rtmp://user:pa%40ss@live.example.com:1936/app/inst/key?x=1', '2606:2800:220:1::1'), {
    url: 'rtmp://user:pa%40ss@[2606:2800:220:1::1]:1936/app/inst/key?x=1',
    tcUrl: 'rtmp://live.example.com:1936/app/inst',
  });
  assert.deepEqual(pinnedPushTarget('rtmp://93.184.216.34/app/key', '93.184.216.34'), { url: 'rtmp://93.184.216.34/app/key' });
  assert.deepEqual(pinnedPushTarget('rtmps://live.example.com:443/app/key', '93.184.216.34'), { url: 'rtmps://live.example.com:443/app/key' });
  const args = pusherArgs('rtmp://93.184.216.34/app/key', 'rtmp://live.example.com/app');
  assert.deepEqual(args.slice(-3), ['-rtmp_tcurl', 'rtmp://live.example.com/app', 'rtmp://93.184.216.34/app/key']);
  assert.equal(pusherArgs('rtmp://h/app/key').includes('-rtmp_tcurl'), false);
});
