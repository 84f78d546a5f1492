/**
 * Web mode, the page's audio path lost: Chromium's audio service killed while the page plays a tone. Chromium does
 * not start another, so the capture would carry silence for the rest of the session; the recorder reloads the page
 * once (event 73 `audio_silence`) and the tone is back in the slices after it.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { audioServicePid } from '../../media/capture/index.ts';
import { decodeMono, dominantFrequency, rms } from '../../media/capture/testing/media-checks.ts';
import { startPageServer } from '../../media/capture/testing/page-server.ts';
import { parsePlaylist } from '../../media/index.ts';
import { waitUntil } from '../../testing/wait.ts';
import { startHarness, storageConfig } from '../individual/testing/harness.ts';
import { bucketKeys } from '../individual/testing/media-checks.ts';
import { webClient, webService } from './testing/web-client.ts';

test('web mode: the audio service killed while the page plays → one reload with event 73 audio_silence, and the tone is recorded again', async () => {
  const pages = await startPageServer({ tone: { colour: '#0000ff', toneHz: 440 } });
  const h = await startHarness({ recording: { webSliceSeconds: 3, webMp4SplitSeconds: 6 } });
  try {
    const web = webClient(h.api);
    const cname = 'web-audio-loss';
    const uid = '5201';
    const { resourceId, sid } = await web.start(cname, uid, {
      storageConfig: storageConfig(),
      extensionServiceConfig: { extensionServices: [webService(`${pages.origin}/tone`)] },
    });
    const slices = () => bucketKeys(h.bucketDir).filter((k) => k.includes(sid) && k.endsWith('.ts'));
    await waitUntil(() => slices().length >= 1, { timeoutMs: 60_000, intervalMs: 200, what: 'first slice' });
    const victim = await waitUntil(() => audioServicePid(process.pid), { timeoutMs: 30_000, intervalMs: 200, what: 'the audio service' });
    process.kill(victim, 'SIGKILL');

    const reload = await waitUntil(() => h.events.find((e) => e.payload.sid === sid && e.eventType === 73), { timeoutMs: 30_000, intervalMs: 100, what: 'event 73' });
    assert.equal(reload.payload.details.reason, 'audio_silence');
    // The reloaded page's sound: the first slice that starts a second after the reload was seen has the tone.
    const since = Date.now();
    const playlistKey = () => bucketKeys(h.bucketDir).find((k) => k.includes(sid) && k.endsWith('.m3u8'));
    const toneSlice = await waitUntil(async () => {
      const key = playlistKey();
      if (!key) return false;
      const pl = parsePlaylist(readFileSync(join(h.bucketDir, key), 'utf8'), 'video');
      const later = pl.entries.filter((e) => e.startMs >= since + 1000);
      if (later.length === 0) return false;
      const dir = key.slice(0, key.lastIndexOf('/') + 1);
      return join(h.bucketDir, dir + later[0]!.uri);
    }, { timeoutMs: 60_000, intervalMs: 300, what: 'a slice after the reload' });
    const pcm = await decodeMono(toneSlice);
    assert.ok(rms(pcm) > 0.05, `the tone is back after the reload (rms ${rms(pcm).toFixed(3)})`);
    assert.ok(Math.abs(dominantFrequency(pcm, 100, 1000) - 440) < 5);
    assert.equal(h.events.filter((e) => e.payload.sid === sid && e.eventType === 73).length, 1, 'one reload');

    const stop = await h.api('POST', web.path(resourceId, sid, 'stop'), { cname, uid, clientRequest: {} });
    assert.equal(stop.status, 200, JSON.stringify(stop.body));
  } finally {
    await h.close();
    await pages.close();
  }
});
