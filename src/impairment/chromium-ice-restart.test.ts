// A Chromium publisher and a Chromium viewer (call pages) whose network is gone (the relay drops every peer socket it
// has seen, as when a phone leaves the Wi-Fi) notice the lost consent, restart ICE through WHIP/WHEP PATCH by
// themselves (Chromium gathers on new sockets, which get through) and go on in the same sessions. A NAT that only
// rebinds is followed by the node without a restart.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildRtcTokenWithUid } from '@reeltime/token';
import { whepSubscribe } from '../channel/index.ts';
import { callPageTilePlays, launchTestChromium, type TestChromium } from '../testing/chromium.ts';
import { waitUntil } from '../testing/index.ts';
import { startNodeBehindRelay } from './testing/index.ts';
import { callPageUrl } from '../testing/call-page.ts';

const APP = '970CA35de60c44645bbae8a215061b33';
const CERT = '5CFd2fd1755d40ecb72977518be15d3b';

interface PublishState {
  readonly state?: string;
  readonly session?: string;
  readonly restarts?: number;
  readonly ice?: string;
}

// Page functions (the call page's Content-Security-Policy forbids evaluating strings).
const publishState = (): PublishState | undefined => {
  const p = (window as unknown as { reeltime?: { publish?: PublishState & { pc: RTCPeerConnection } } }).reeltime?.publish;
  return p ? { state: p.state, session: p.session, restarts: p.restarts ?? 0, ice: p.pc.iceConnectionState } : undefined;
};
const sending = () => (window as unknown as { reeltime?: { publish?: { state?: string } } }).reeltime?.publish?.state === 'connected';
const restartedAndConnected = () => {
  const p = (window as unknown as { reeltime?: { publish?: { restarts?: number; pc: RTCPeerConnection } } }).reeltime?.publish;
  return (p?.restarts ?? 0) >= 1 && ['connected', 'completed'].includes(p!.pc.iceConnectionState);
};

/** RTT measurements Chromium made from the node's receiver reports (remote-inbound-rtp): they need the node's RTCP. */
const reportsFromNode = async (): Promise<number> => {
  const pc = (window as unknown as { reeltime: { publish: { pc: RTCPeerConnection } } }).reeltime.publish.pc;
  let n = 0;
  (await pc.getStats()).forEach((r) => {
    if (r.type === 'remote-inbound-rtp') n += r.roundTripTimeMeasurements ?? 0;
  });
  return n;
};

test('Chromium publisher behind a NAT that rebinds: the node follows its checks to the new address, no restart needed', { timeout: 240_000 }, async (t) => {
  const { server: s, relay, close } = await startNodeBehindRelay({ seed: 33 });
  let browser: TestChromium | undefined;
  try {
    browser = await launchTestChromium();
    const page = await browser.context.newPage();
    await page.goto(callPageUrl(s.url, 'chromium-rebind', 101));
    await page.waitForFunction(sending, undefined, { timeout: 60_000 });
    const reports = () => page.evaluate(reportsFromNode);
    /** Waits for `n` more RTT measurements (each needs a receiver report of the node) than there are now. */
    const moreReports = async (n: number, what: string) => {
      const from = await reports();
      const started = Date.now();
      await waitUntil(async () => (await reports()) >= from + n, { what, timeoutMs: 20_000, intervalMs: 250 });
      return Date.now() - started;
    };
    // Chromium's RTT measurements start once the node has reports of its sender reports to answer.
    await moreReports(3, 'RTT measurements from the node’s reports');
    await relay.rebind();
    // Chromium's next checks (with USE-CANDIDATE) come from the new address; the node moves its sends there. Without
    // that, no report reaches Chromium any more (a run without the follow timed out here).
    const tookMs = await moreReports(3, 'RTT measurements from reports sent to the new address');
    t.diagnostic(`rebinding → three RTT measurements from the node's reports at the new address: ${tookMs} ms`);
    assert.equal((await page.evaluate(publishState))?.restarts, 0, 'no ICE restart was needed');
  } finally {
    await browser?.close();
    await close();
  }
});

/** The call page's tile of uid 101: its ICE restarts, ICE state and decoded frames. */
const tile101 = () => {
  const r = (window as unknown as { reeltime?: { remotes?: Record<number, { restarts?: number; pc: RTCPeerConnection }> } }).reeltime?.remotes?.[101];
  const v = document.querySelector('#remote-101 video') as HTMLVideoElement | null;
  return { restarts: r?.restarts ?? 0, ice: r?.pc.iceConnectionState ?? 'none', frames: v ? v.getVideoPlaybackQuality().totalVideoFrames : 0 };
};

test('Chromium publisher and viewer: a broken path is noticed, ICE restarts through WHIP/WHEP PATCH, the same sessions go on', { timeout: 240_000 }, async (t) => {
  const { server: s, relay, close } = await startNodeBehindRelay({ seed: 31 });
  let browser: TestChromium | undefined;
  const cname = 'chromium-ice-restart';
  try {
    browser = await launchTestChromium();
    const page = await browser.context.newPage();
    await page.goto(callPageUrl(s.url, cname, 101));
    await page.waitForFunction(sending, undefined, { timeout: 60_000 });
    const before = await page.evaluate(publishState);
    const token = buildRtcTokenWithUid(APP, CERT, cname, 900, 2, 600, 600);
    const watch = async (what: string) => {
      const sub = await whepSubscribe({ endpoint: `${s.url}/rtc/v1/apps/${APP}/channels/${cname}/whep?uid=900&publisher=101`, token, kinds: ['video'] });
      try {
        await sub.ready;
        await sub.waitFor(() => sub.counts.video > 100, 30_000, what);
      } finally {
        await sub.close();
      }
    };
    await watch('video from Chromium');
    // A second call page in the same browser watches uid 101 (WHEP, through the relay too).
    const viewer = await browser.context.newPage();
    await viewer.goto(callPageUrl(s.url, cname, 102));
    await viewer.waitForFunction(callPageTilePlays, 101, { timeout: 60_000 });

    relay.dropPeers();
    const brokenAt = Date.now();
    await page.waitForFunction(restartedAndConnected, undefined, { timeout: 60_000, polling: 250 }).catch(async (e: unknown) => {
      const status = await page.locator('#status').textContent();
      throw new Error(`${(e as Error).message}; the page: ${JSON.stringify(await page.evaluate(publishState))}, status "${status}"`);
    });
    t.diagnostic(`network gone → Chromium's ICE restarted and connected: ${Date.now() - brokenAt} ms`);
    const after = await page.evaluate(publishState);
    assert.equal(after?.session, before?.session, 'the same WHIP session');
    assert.equal(after?.state, 'connected');
    assert.ok(relay.counters.upstream.dropped.random > 0, 'the old sockets’ datagrams were dropped');
    // A viewer (on new sockets of its own) gets Chromium's video over the new path.
    await watch('video after the restart');
    // The watching page's tile restarted by itself too and plays on.
    await viewer.waitForFunction(() => {
      const r = (window as unknown as { reeltime?: { remotes?: Record<number, { restarts?: number; pc: RTCPeerConnection }> } }).reeltime?.remotes?.[101];
      return (r?.restarts ?? 0) >= 1 && ['connected', 'completed'].includes(r!.pc.iceConnectionState);
    }, undefined, { timeout: 60_000, polling: 250 });
    const framesAfter = (await viewer.evaluate(tile101)).frames;
    await viewer.waitForFunction((n) => (document.querySelector('#remote-101 video') as HTMLVideoElement).getVideoPlaybackQuality().totalVideoFrames > n + 30, framesAfter, { timeout: 30_000 });
    t.diagnostic(`the watching page's tile: ${JSON.stringify(await viewer.evaluate(tile101))}`);
  } finally {
    await browser?.close();
    await close();
  }
});
