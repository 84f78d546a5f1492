// A Chromium publisher (the call page, fake camera) whose every packet goes through the impairment relay
// (channel.icePortOffset): with 5 % uplink loss the node repairs it (NACK, RTX) and a viewer still gets nearly every
// packet; under a bandwidth cap the node's transport-wide congestion feedback makes Chromium lower its bitrate below
// the cap instead of losing packets in the relay's queue.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildRtcTokenWithUid } from '@reeltime/token';
import type { Page } from 'playwright-core';
import { whepSubscribe } from '../channel/index.ts';
import { scrape } from '../metrics/testing.ts';
import { launchTestChromium, type TestChromium } from '../testing/chromium.ts';
import { waitUntil, type TestServer } from '../testing/index.ts';
import type { ImpairmentRelay } from './index.ts';
import { countVp8Frames, startNodeBehindRelay } from './testing/index.ts';
import { callPageUrl } from '../testing/call-page.ts';

const APP = '970CA35de60c44645bbae8a215061b33';
const CERT = '5CFd2fd1755d40ecb72977518be15d3b';

interface OutboundVideo {
  /** bytesSent of the video outbound-rtp (media, retransmissions included), and its stats time (ms). */
  readonly bytes: number;
  readonly at: number;
  readonly retransmittedBytes: number;
  readonly limitation: string;
  readonly available: number;
}

// Page functions (the call page's Content-Security-Policy forbids evaluating strings).
const joinedAndSending = () => {
  const r = (window as unknown as { reeltime?: { joined?: boolean; publish?: { state?: string } } }).reeltime;
  return r?.joined === true && r.publish?.state === 'connected';
};
const outboundVideo = async (): Promise<OutboundVideo> => {
  const pc = (window as unknown as { reeltime: { publish: { pc: RTCPeerConnection } } }).reeltime.publish.pc;
  const out = { bytes: 0, at: 0, retransmittedBytes: 0, limitation: '', available: 0 };
  (await pc.getStats()).forEach((r) => {
    if (r.type === 'outbound-rtp' && r.kind === 'video') {
      out.bytes += r.bytesSent;
      out.retransmittedBytes += r.retransmittedBytesSent ?? 0;
      out.at = r.timestamp;
      out.limitation = r.qualityLimitationReason ?? '';
    }
    if (r.type === 'candidate-pair' && r.nominated && r.availableOutgoingBitrate) out.available = r.availableOutgoingBitrate;
  });
  return out;
};

/** Chromium's video send rate (bit/s) over a window of at least `ms` of its own stats time. */
async function sendRate(page: Page, ms: number): Promise<{ bps: number; last: OutboundVideo }> {
  const first = await page.evaluate(outboundVideo);
  let last = first;
  await waitUntil(async () => (last = await page.evaluate(outboundVideo)).at - first.at >= ms, { what: 'a stats window', timeoutMs: ms + 20_000, intervalMs: 250 });
  return { bps: ((last.bytes - first.bytes) * 8 * 1000) / (last.at - first.at), last };
}

async function withChromiumThroughRelay(
  cname: string,
  run: (ctx: { s: TestServer; relay: ImpairmentRelay; page: Page }) => Promise<void>,
  chromiumArgs: readonly string[] = [],
): Promise<void> {
  const { server: s, relay, close } = await startNodeBehindRelay({ seed: 27 });
  let browser: TestChromium | undefined;
  try {
    browser = await launchTestChromium(chromiumArgs);
    const page = await browser.context.newPage();
    await page.goto(callPageUrl(s.url, cname, 101));
    await page.waitForFunction(joinedAndSending, undefined, { timeout: 60_000 });
    await run({ s, relay, page });
  } finally {
    await browser?.close();
    await close();
  }
}

test('Chromium through the relay with 5 % uplink loss: the node NACKs, Chromium repairs over RTX, a viewer gets ≥ 99 % of the video frames complete', { timeout: 240_000 }, async (t) => {
  await withChromiumThroughRelay('chromium-lossy', async ({ s, relay }) => {
    const token = buildRtcTokenWithUid(APP, CERT, 'chromium-lossy', 900, 2, 600, 600);
    const sub = await whepSubscribe({ endpoint: `${s.url}/rtc/v1/apps/${APP}/channels/chromium-lossy/whep?uid=900&publisher=101`, token, kinds: ['video'], keep: 20_000 });
    try {
      await sub.ready;
      await sub.waitFor(() => sub.counts.video > 50, 30_000, 'video from Chromium');
      assert.ok(relay.counters.upstream.packetsIn > 50, 'Chromium’s media goes through the relay');
      relay.setLink('upstream', { loss: 0.05 });
      const from = sub.counts.video;
      const dropsBefore = relay.counters.upstream.dropped.random;
      // About 18 s of Chromium's fake camera (some 550 frames: 99 % lets 5 go); 1500 packets (30 s) until session 29,
      // where 907-909 of 908-910 frames came complete in every run.
      await sub.waitFor(() => sub.counts.video >= from + 900, 90_000, '900 more video packets');
      assert.equal(sub.codecs.get('video'), 'vp8', 'Chromium publishes VP8 first');
      // What the viewer can decode: complete frames over the frames Chromium sent (by PictureID).
      const frames = countVp8Frames(sub.packets.video.slice(from, -50));
      const m = await scrape(s.url);
      const report = JSON.stringify({
        frames,
        dropped: relay.counters.upstream.dropped.random - dropsBefore,
        nackOut: m.sum('reeltime_rtcp_nack_total', { direction: 'out' }),
        rtxIn: m.sum('reeltime_rtp_rtx_packets_total', { direction: 'in' }),
        unrepaired: m.sum('reeltime_rtp_unrepaired_total'),
        keyframeOnLoss: m.sum('reeltime_keyframe_requests_on_loss_total'),
        twcc: m.sum('reeltime_rtcp_twcc_total'),
      });
      t.diagnostic(report);
      assert.ok(relay.counters.upstream.dropped.random - dropsBefore >= 20, `the relay dropped Chromium's packets: ${report}`);
      assert.ok(m.sum('reeltime_rtcp_nack_total', { direction: 'out' }) > 0, report);
      assert.ok(m.sum('reeltime_rtp_rtx_packets_total', { direction: 'in' }) > 0, `Chromium answered over RTX (negotiated from its offer): ${report}`);
      assert.ok(m.sum('reeltime_rtcp_twcc_total') > 0, `transport-cc feedback went to Chromium: ${report}`);
      assert.ok(frames.complete / frames.expected >= 0.99, `complete frames at the viewer: ${report}`);
    } finally {
      await sub.close();
    }
  });
});

/** Bits per second into the relay's upstream (everything the publisher sends: audio, video, RTCP) over `sample`. */
async function upstreamRate(relay: ImpairmentRelay, sample: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  const b0 = relay.counters.upstream.bytesIn;
  await sample();
  return ((relay.counters.upstream.bytesIn - b0) * 8 * 1000) / (performance.now() - t0);
}

test('Chromium under a bandwidth cap: the node’s TWCC feedback makes it lower its bitrate below the cap, with little queue loss', { timeout: 300_000 }, async (t) => {
  // The fake camera at its own 20 fps (the tests' default is 15): at 15 its rate hovered near the 120 kbit/s floor
  // below, and half of everything sent was hardly more than the audio alone.
  await withChromiumThroughRelay('chromium-capped', async ({ s, relay, page }) => {
    // The fake camera's picture is simple: VP8 needs about 200 kbit/s for it. Wait until the encoder sends that.
    let clean = await sendRate(page, 3000);
    await waitUntil(async () => (clean = await sendRate(page, 3000)).bps > 120_000, {
      what: () => `Chromium's video rate (${Math.round(clean.bps)} bit/s, ${JSON.stringify(clean.last)})`,
      timeoutMs: 60_000,
      intervalMs: 0,
    });
    let video = clean;
    const total = await upstreamRate(relay, async () => (video = await sendRate(page, 3000)));
    // Half of what it sends: the video has to give up well over half of its rate (audio keeps its own).
    const cap = Math.round(total * 0.5);
    // 200 ms of queue behind a 5 kB bucket: a bottleneck router's buffer.
    relay.setLink('upstream', { rate: { bitsPerSecond: cap, burstBytes: 5_000, queueBytes: Math.round((cap / 8) * 0.2) } });
    let capped = video;
    await waitUntil(async () => (capped = await sendRate(page, 3000)).bps < video.bps * 0.6, {
      what: () => `Chromium adapting (${Math.round(capped.bps)} bit/s, before ${Math.round(video.bps)}, cap ${cap} for everything)`,
      timeoutMs: 90_000,
      intervalMs: 0,
    });
    // Adapted: over the next window everything it sends fits, and the link's queue drops little.
    const up = relay.counters.upstream;
    const before = { in: up.packetsIn, dropped: up.dropped.queue };
    let settled = capped;
    const settledTotal = await upstreamRate(relay, async () => (settled = await sendRate(page, 5000)));
    const lossShare = (up.dropped.queue - before.dropped) / (up.packetsIn - before.in);
    const m = await scrape(s.url);
    const report = JSON.stringify({
      videoBefore: Math.round(video.bps),
      totalBefore: Math.round(total),
      cap,
      videoAfter: Math.round(settled.bps),
      totalAfter: Math.round(settledTotal),
      lossShare,
      limitation: settled.last.limitation,
      estimate: settled.last.available,
      twcc: m.sum('reeltime_rtcp_twcc_total'),
      queueDrops: up.dropped.queue,
    });
    t.diagnostic(report);
    assert.ok(settled.bps < video.bps * 0.6, `Chromium's video rate went down: ${report}`);
    // 10 %: over a 5 s window Chromium's bandwidth probes (sent above its estimate) show; 1.07 × the cap was seen
    // in a whole-suite run with its estimate at 0.99 × the cap and 11 packets dropped by the queue.
    assert.ok(settledTotal < cap * 1.1, `what it sends fits under the cap: ${report}`);
    assert.ok(lossShare < 0.02, `little loss once adapted: ${report}`);
    assert.ok(m.sum('reeltime_rtcp_twcc_total') > 0, report);
  }, ['--use-fake-device-for-media-stream=fps=20']);
});
