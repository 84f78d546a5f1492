import assert from 'node:assert/strict';
import { test } from 'node:test';
import { safeStreamUrl, safeUrl } from './index.ts';

test('URLs for logs: no query or userinfo; a push URL without its stream key', () => {
  assert.equal(safeUrl('https://u:p@hooks.example/a/b?token=1'), 'https://hooks.example/a/b');
  assert.equal(safeStreamUrl('rtmp://live.example.com/app/stream-key-123?auth=x'), 'rtmp://live.example.com/app/[redacted]');
  assert.equal(safeStreamUrl('rtmps://live.example.com:443/stream-key-123'), 'rtmps://live.example.com:443/[redacted]');
  assert.equal(safeStreamUrl('not a url'), '(invalid URL)');
});
