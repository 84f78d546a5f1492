// Watching a recording while it records, in headless Chromium through the console: the session page's player plays
// the growing playlist from its first slice while its duration grows, "Live" shows the publisher over WHEP with a
// viewer token the customer's credentials got, "Recording" goes back; after stop the same playlist link is a VOD
// playlist with every slice in the bucket.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { APP, rtcToken, startHarness, storageConfig } from '../recorders/individual/testing/harness.ts';
import { bucketKeys } from '../recorders/individual/testing/media-checks.ts';
import { launchTestChromium, videoPixel } from '../testing/chromium.ts';
import { openSessionPage } from '../testing/console-page.ts';
import { TEST_CUSTOMER_AUTH, waitUntil } from '../testing/index.ts';

const COLOUR = { r: 0x30, g: 0xc0, b: 0x50 };

type Colour = { r: number; g: number; b: number };

/** A decoded frame of `video`, read through a canvas at three quarters of its size. */
const pixelOf = (page: Page, video: string) => page.evaluate(videoPixel, video);

const isColour = (p: Colour, want: Colour) => (['r', 'g', 'b'] as const).every((k) => Math.abs(p[k] - want[k]) < 40);

const videoState = (page: Page, sel: string) =>
  page.evaluate((s) => {
    const v = document.querySelector(s) as HTMLVideoElement | null;
    return v ? { currentTime: v.currentTime, duration: v.duration, readyState: v.readyState } : null;
  }, sel);

test('console: a live session plays from its first slice as it grows, switches to the channel over WHEP and back; after stop its playlist is VOD', async () => {
  const h = await startHarness({ channel: { idleTimeoutMs: 30000 }, recording: { individualSliceSeconds: 4 } });
  const browser = await launchTestChromium();
  try {
    const cname = 'console-live';
    await h.publish({ cname, uid: 601, color: '#30c050', toneHz: 440, codec: 'h264' });
    const { resourceId, sid } = await h.startRecording(cname, '9601', {
      token: rtcToken(cname, 9601, 2),
      storageConfig: storageConfig(),
      recordingConfig: { channelType: 0, subscribeUidGroup: 0, streamMode: 'standard' },
      recordingFileConfig: { avFileType: ['hls'] },
    });
    const videoSlices = () => bucketKeys(h.bucketDir).filter((k) => k.includes('__uid_s_601__uid_e_video_') && k.endsWith('.ts'));
    // Five 4 s slices: hls.js would start a playlist this long without ENDLIST about three slices before its end.
    await waitUntil(() => videoSlices().length >= 5, { timeoutMs: 120_000, intervalMs: 250, what: 'five video slices of uid 601' });

    const failures: string[] = [];
    const page = await openSessionPage(browser, h.server.url, sid, failures);
    page.on('console', (m) => void (/Content Security Policy/i.test(m.text()) && failures.push(m.text())));
    await page.waitForSelector('#session[data-state="live"]');

    // The recording's player: from the start of the session, not its live edge, and its duration grows with the
    // playlist while the session records.
    const player = '#playback figure[data-player="uid 601"] video[data-player="hls"]';
    await page.waitForSelector(player);
    await page.waitForFunction((sel) => (document.querySelector(sel) as HTMLVideoElement).readyState >= 2, player);
    const first = await videoState(page, player);
    assert.ok(first && first.currentTime < 1, `starts at the first slice: ${JSON.stringify(first)}`);
    await page.evaluate((sel) => (document.querySelector(sel) as HTMLVideoElement).play(), player);
    await page.waitForFunction((sel) => (document.querySelector(sel) as HTMLVideoElement).currentTime > 0.5, player);
    assert.ok(isColour(await pixelOf(page, player), COLOUR), 'the recording shows the publisher');
    const durationBefore = (await videoState(page, player))!.duration;
    await page.waitForFunction(
      ([sel, d]) => (document.querySelector(sel as string) as HTMLVideoElement).duration > (d as number) + 2,
      [player, durationBefore] as const,
    );

    const viewers = async () => {
      const r = await fetch(`${h.server.url}/rtc/v1/apps/${APP}/channels/${cname}`, { headers: { authorization: TEST_CUSTOMER_AUTH } });
      const snapshot = (await r.json()) as { participants: { uid: number }[] };
      return snapshot.participants.filter((p) => p.uid >= 4_000_000_000).length;
    };
    // Live: the publisher in real time over WHEP (its colour decoded), its session on the node.
    await page.click('#view button >> text=Live');
    const live = '#live figure[data-live="601"] video[data-player="live"]';
    await page.waitForSelector(live);
    assert.equal(await viewers(), 1, 'the console watches as one viewer uid');
    await page.waitForFunction((sel) => (document.querySelector(sel) as HTMLVideoElement).readyState >= 2 && (document.querySelector(sel) as HTMLVideoElement).videoWidth > 0, live);
    await waitUntil(async () => isColour(await pixelOf(page, live), COLOUR), { timeoutMs: 30_000, intervalMs: 250, what: 'the live view shows the publisher' });
    assert.equal(await page.getAttribute('#playback', 'data-view'), 'live');
    // Back to the recording: the live view's WHEP session is left (the channel lists no viewer above the recorder).
    await page.click('#view button >> text=Recording');
    await page.waitForSelector(player);
    assert.equal(await page.locator('#live').count(), 0);
    await waitUntil(async () => (await viewers()) === 0, { timeoutMs: 30_000, intervalMs: 250, what: "the live view's WHEP session left" });

    // Stop: the same playlist link now answers a VOD playlist that names every slice in the bucket.
    const url = await page.getAttribute(player, 'data-src');
    assert.ok(url);
    const stop = await h.api('POST', h.path(resourceId, sid, 'stop'), { cname, uid: '9601', clientRequest: {} });
    assert.equal(stop.status, 200);
    await page.waitForSelector('#session[data-state="ended"]');
    assert.equal(await page.locator('#view').count(), 0, 'no live view once the session ended');
    const playlist = await (await fetch(new URL(url!, h.server.url))).text();
    assert.match(playlist, /#EXT-X-ENDLIST/);
    const named = playlist.split('\n').filter((l) => l.endsWith('.ts'));
    assert.deepEqual(
      named.map((n) => n.split('/').pop()).sort(),
      videoSlices().map((k) => k.split('/').pop()).sort(),
    );
    assert.deepEqual(failures, []);
  } finally {
    await browser.close();
    await h.close();
  }
});
