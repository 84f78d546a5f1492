import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  audioMixName,
  mergedPlaylistName,
  parseUserFileName,
  parseUtcStamp,
  playlistName,
  sanitizeCname,
  sliceName,
  snapshotName,
  transcodedMp4Name,
  userMp4Name,
  utcStamp,
} from './naming.ts';

const s = { sid: '38f8e3cfdc474cd56fc1ceba380d7e1a', cname: 'room1' };
const t = Date.UTC(2019, 8, 20, 12, 51, 42, 485);

test('17-digit UTC stamps as in the notes (20190920125142485)', () => {
  assert.equal(utcStamp(t), '20190920125142485');
  assert.equal(utcStamp(Date.UTC(2026, 0, 1)), '20260101000000000');
  assert.equal(parseUtcStamp('20190920125142485'), t);
  assert.equal(parseUtcStamp('20191320125142485'), undefined, 'month 13');
  assert.equal(parseUtcStamp('2019092012514248'), undefined, '16 digits');
  assert.throws(() => utcStamp(Number.NaN), RangeError);
  fc.assert(fc.property(fc.integer({ min: 0, max: 253402300799999 }), (ms) => parseUtcStamp(utcStamp(ms)) === ms));
});

test('individual names: playlist, slices, snapshot, MP4, merged index, scene 2 outputs', () => {
  assert.equal(playlistName(s, '123', 'audio'), '38f8e3cfdc474cd56fc1ceba380d7e1a_room1__uid_s_123__uid_e_audio.m3u8');
  assert.equal(playlistName(s, '123', 'video'), '38f8e3cfdc474cd56fc1ceba380d7e1a_room1__uid_s_123__uid_e_video.m3u8');
  assert.equal(sliceName(s, '123', 'video', t, 'webm'), '38f8e3cfdc474cd56fc1ceba380d7e1a_room1__uid_s_123__uid_e_video_20190920125142485.webm');
  assert.equal(sliceName(s, '123', 'audio', t, 'ts'), '38f8e3cfdc474cd56fc1ceba380d7e1a_room1__uid_s_123__uid_e_audio_20190920125142485.ts');
  assert.equal(snapshotName(s, '123', t), '38f8e3cfdc474cd56fc1ceba380d7e1a_room1__uid_s_123__uid_e_video_20190920125142485.jpg');
  assert.equal(userMp4Name(s, '123', 'av', t), '38f8e3cfdc474cd56fc1ceba380d7e1a_room1__uid_s_123__uid_e_av_20190920125142485.mp4');
  assert.equal(mergedPlaylistName(s, '123'), '38f8e3cfdc474cd56fc1ceba380d7e1a_room1__uid_s_123__uid_e_av.m3u8');
  assert.equal(transcodedMp4Name(s, '123'), '38f8e3cfdc474cd56fc1ceba380d7e1a_room1__uid_s_123__uid_e_av.mp4');
  assert.equal(audioMixName(s, 'mp3'), '38f8e3cfdc474cd56fc1ceba380d7e1a_room1.mp3');
  assert.equal(audioMixName(s, 'm4a'), '38f8e3cfdc474cd56fc1ceba380d7e1a_room1.m4a');
});

test('bak<n>_ prefix after a restart on every new file', () => {
  const b = { ...s, backupIndex: 0 };
  assert.equal(playlistName(b, '7', 'audio'), 'bak0_38f8e3cfdc474cd56fc1ceba380d7e1a_room1__uid_s_7__uid_e_audio.m3u8');
  assert.equal(sliceName({ ...s, backupIndex: 2 }, '7', 'audio', t, 'ts').slice(0, 5), 'bak2_');
  assert.equal(snapshotName(b, '7', t).slice(0, 5), 'bak0_');
  assert.equal(audioMixName(b, 'aac').slice(0, 5), 'bak0_');
  assert.throws(() => playlistName({ ...s, backupIndex: -1 }, '7', 'audio'), RangeError);
});

test('special characters of cname become "-" in file names', () => {
  assert.equal(sanitizeCname('a!b@c#d$e%f^g&h*i(j)k+l_m.n=o[p]q{r}s~t|u,v;w:x?y<z>'), 'a-b-c-d-e-f-g-h-i-j-k-l-m-n-o-p-q-r-s-t-u-v-w-x-y-z-');
  assert.equal(playlistName({ sid: 'x', cname: 'my_room.1' }, '1', 'audio'), 'x_my-room-1__uid_s_1__uid_e_audio.m3u8');
  assert.equal(sanitizeCname('plain Room 9'), 'plain Room 9');
});

test('names parse back to their parts', () => {
  const p = parseUserFileName(sliceName({ ...s, backupIndex: 1 }, '42', 'video', t, 'webm'));
  assert.deepEqual(p, { backupIndex: 1, sid: s.sid, cname: 'room1', uid: '42', track: 'video', startMs: t, extension: 'webm' });
  assert.equal(parseUserFileName(playlistName(s, '42', 'audio'))?.startMs, undefined);
  assert.equal(parseUserFileName('nonsense.ts'), undefined);
  assert.equal(parseUserFileName(`${s.sid}_room1__uid_s_42__uid_e_audio_20191399125142485.ts`), undefined);
  fc.assert(
    fc.property(fc.stringMatching(/^[0-9a-f]{32}$/), fc.string({ minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 4294967295 }), fc.integer({ min: 0, max: 4102444800000 }), (sid, cname, uid, ms) => {
      const name = sliceName({ sid, cname }, String(uid), 'audio', ms, 'ts');
      const back = parseUserFileName(name);
      return back !== undefined && back.uid === String(uid) && back.startMs === ms && back.sid === sid;
    }),
  );
});
