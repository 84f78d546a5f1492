import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { appendSlice, createPlaylist, endPlaylist, parsePlaylist, renderMergedIndex, renderPlaylist } from './m3u8.ts';

const T = Date.UTC(2026, 0, 1, 10, 0, 0, 0);

test('growing playlist in the notes format, then final with #EXT-X-ENDLIST', () => {
  let p = createPlaylist('audio');
  assert.equal(renderPlaylist(p), '#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-ALLOW-CACHE:YES\n#EXT-X-TARGETDURATION:1\n');
  p = appendSlice(p, { uri: 'a_1.ts', durationSec: 15.019, startMs: T, newStream: true });
  p = appendSlice(p, { uri: 'a_2.ts', durationSec: 14.5, startMs: T + 15019, newStream: false });
  const growing = renderPlaylist(p);
  assert.equal(
    growing,
    [
      '#EXTM3U',
      '#EXT-X-VERSION:3',
      '#EXT-X-MEDIA-SEQUENCE:0',
      '#EXT-X-ALLOW-CACHE:YES',
      '#EXT-X-TARGETDURATION:16',
      '#EXT-X-AGORA-TRACK-EVENT:EVENT=START,TRACK_TYPE=AUDIO,TIME=20260101100000000',
      '#EXTINF:15.019',
      'a_1.ts',
      '#EXTINF:14.500',
      'a_2.ts',
      '',
    ].join('\n'),
  );
  assert.ok(!growing.includes('#EXT-X-ENDLIST'));
  const final = renderPlaylist(endPlaylist(p));
  assert.ok(final.endsWith('a_2.ts\n#EXT-X-ENDLIST\n'));
  assert.throws(() => appendSlice(endPlaylist(p), { uri: 'x.ts', durationSec: 1, startMs: T, newStream: false }));
});

test('a broken stream gets #EXT-X-DISCONTINUITY and a new track-start tag', () => {
  let p = createPlaylist('video');
  p = appendSlice(p, { uri: 'v_1.webm', durationSec: 16, startMs: T, newStream: true });
  p = appendSlice(p, { uri: 'v_2.webm', durationSec: 4, startMs: T + 30000, newStream: true });
  const text = renderPlaylist(p);
  const lines = text.split('\n');
  const i = lines.indexOf('#EXT-X-DISCONTINUITY');
  assert.ok(i > 0);
  assert.equal(lines[i + 1], '#EXT-X-AGORA-TRACK-EVENT:EVENT=START,TRACK_TYPE=VIDEO,TIME=20260101100030000');
  assert.equal((text.match(/DISCONTINUITY/g) ?? []).length, 1, 'never before the first slice');
});

test('correctEXTINF writes the RFC 8216 comma', () => {
  const p = appendSlice(createPlaylist('audio'), { uri: 'a.ts', durationSec: 2, startMs: T, newStream: true });
  assert.match(renderPlaylist(p, { correctExtinf: true }), /#EXTINF:2\.000,\na\.ts/);
});

test('bad durations are refused', () => {
  for (const d of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
    assert.throws(() => appendSlice(createPlaylist('audio'), { uri: 'a.ts', durationSec: d, startMs: T, newStream: true }), RangeError);
  }
});

test('render → parse round trip (restart recovery reads playlists back)', () => {
  fc.assert(
    fc.property(
      fc.array(fc.record({ d: fc.integer({ min: 1, max: 20000 }), brk: fc.boolean() }), { minLength: 1, maxLength: 30 }),
      fc.boolean(),
      (slices, ended) => {
        let p = createPlaylist('audio');
        let at = T;
        slices.forEach((x, k) => {
          p = appendSlice(p, { uri: `s_${k}_20260101100000000.ts`, durationSec: x.d / 1000, startMs: at, newStream: k === 0 || x.brk });
          at += x.d;
        });
        if (ended) p = endPlaylist(p);
        const back = parsePlaylist(renderPlaylist(p), 'audio');
        assert.equal(back.ended, ended);
        assert.deepEqual(back.entries.map((e) => [e.uri, e.durationSec, e.discontinuity]), p.entries.map((e) => [e.uri, e.durationSec, e.discontinuity]));
      },
    ),
  );
  assert.throws(() => parsePlaylist('not a playlist', 'audio'));
});

test('standard mode merged index: video with the audio playlist as its rendition', () => {
  const m = renderMergedIndex({ videoUri: 'v.m3u8', audioUri: 'a.m3u8' });
  assert.match(m, /#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio",.*URI="a\.m3u8"/);
  assert.match(m, /#EXT-X-STREAM-INF:BANDWIDTH=\d+,AUDIO="audio"\nv\.m3u8\n$/);
  assert.match(renderMergedIndex({ audioUri: 'a.m3u8' }), /\na\.m3u8\n$/);
  assert.throws(() => renderMergedIndex({}));
});
