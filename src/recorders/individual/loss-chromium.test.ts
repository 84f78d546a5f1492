// Chromium publishers (the call page, fake camera and microphone) recorded through the impairment relay: one with 5 %
// uplink loss, then with 2 % loss in bursts and jitter, one clean as its control, in one channel; one individual
// recording per phase. Chromium answers the node's
// NACKs over RTX and its PLIs with a keyframe, so the lossy recording should keep what the control keeps.
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import type { Page } from 'playwright-core';
import { gilbertForBursts, portRangeMappings, startImpairmentRelay, type ImpairmentRelay, type LinkImpairment } from '../../impairment/index.ts';
import { freeShiftedRanges } from '../../impairment/testing/index.ts';
import { scrape } from '../../metrics/testing.ts';
import { launchTestChromium, type TestChromium } from '../../testing/chromium.ts';
import { waitUntil } from '../../testing/wait.ts';
import { rtcToken, startHarness, storageConfig } from './testing/harness.ts';
import { keptByPts, measureTrack, type TrackMeasure } from './testing/loss-checks.ts';
import { bucketKeys } from './testing/media-checks.ts';
import { joinCallPage as join, sentSoFar } from '../../testing/call-page.ts';

/** Of the publishers' media, recorded (Chromium's own count of Opus packets sent: 50 a second). */
const RECORD_SECONDS = 20;

test('Chromium with 5 % uplink loss, then 2 % in bursts with 50±30 ms jitter, each recorded beside a clean Chromium: no decode error, video and audio kept as the control', { timeout: 300_000 }, async (t) => {
  // The lossy publisher's WHIP session binds the node's lowest media port, reached through the lossy relay alone;
  // every later session (the clean publisher's, and the two pages' WHEP views of each other) binds the ports after
  // it, behind the clean relay.
  const ports = 10;
  const { nodeMin, offset } = await freeShiftedRanges(ports);
  const h = await startHarness({ channel: { udpPortMin: nodeMin, udpPortMax: nodeMin + ports - 1, icePortOffset: offset, idleTimeoutMs: 60_000 } });
  const relays: ImpairmentRelay[] = [];
  let browser: TestChromium | undefined;
  try {
    const at = (port: number) => ({ address: '127.0.0.1', port });
    const lossy = await startImpairmentRelay({ mappings: portRangeMappings(at(nodeMin + offset), at(nodeMin), 1), seed: 27 });
    relays.push(lossy);
    const clean = await startImpairmentRelay({ mappings: portRangeMappings(at(nodeMin + 1 + offset), at(nodeMin + 1), ports - 1), seed: 28 });
    relays.push(clean);
    browser = await launchTestChromium();
    const cname = 'chromium-loss-rec';
    const lossyPage = await join(browser, h.server.url, cname, 101);
    assert.ok(lossy.counters.upstream.packetsIn > 0, 'the first publisher goes through the lossy relay');
    const cleanPage = await join(browser, h.server.url, cname, 102);
    await waitUntil(() => clean.counters.upstream.packetsIn > 100, { what: 'the second publisher through the clean relay', timeoutMs: 30_000 });
    // Loss from here on: the handshakes above were clean (docs/impairment.md, "Changing a link").
    const phases: { name: string; link: LinkImpairment }[] = [
      { name: '5 %', link: { loss: 0.05 } },
      { name: '2 % bursts, 50±30 ms jitter', link: { burst: gilbertForBursts(0.02, 3), delayMs: 50, jitterMs: 30 } },
    ];
    for (const { name, link } of phases) {
      lossy.setLink('upstream', link);
      await recordPhase(t, { h, cname, name, relay: lossy, lossyPage, cleanPage });
    }
  } finally {
    await browser?.close();
    await Promise.all(relays.map((r) => r.close()));
    await h.close();
  }
});

type Harness = Awaited<ReturnType<typeof startHarness>>;

/** One recording of both pages while the lossy page's uplink has its phase's link; the lossy page against the clean one. */
async function recordPhase(
  t: TestContext,
  { h, cname, name, relay, lossyPage, cleanPage }: { h: Harness; cname: string; name: string; relay: ImpairmentRelay; lossyPage: Page; cleanPage: Page },
): Promise<void> {
  const m0 = await scrape(h.server.url);
  const in0 = relay.counters.upstream.packetsIn;
  const drops0 = relay.counters.upstream.dropped.random + relay.counters.upstream.dropped.burst;
  const t0 = await startRecordingOf(h, cname);
  const [lossy0, clean0] = await Promise.all([sentSoFar(lossyPage), sentSoFar(cleanPage)]);
  await waitUntil(async () => (await sentSoFar(lossyPage)).audioPackets - lossy0.audioPackets >= RECORD_SECONDS * 50, {
    timeoutMs: RECORD_SECONDS * 1000 + 60_000,
    intervalMs: 500,
    what: `${name}: the lossy publisher’s audio packets`,
  });
  const [lossy1, clean1] = await Promise.all([sentSoFar(lossyPage), sentSoFar(cleanPage)]);
  const m = await scrape(h.server.url);
  const stop = await h.api('POST', h.path(t0.resourceId, t0.sid, 'stop'), { cname, uid: '9000', clientRequest: {} });
  assert.equal(stop.status, 200, JSON.stringify(stop.body));
  const packetsIn = relay.counters.upstream.packetsIn - in0;
  assert.ok(packetsIn > 0, `${name}: the lossy publisher kept sending through its relay`);
  const dropped = relay.counters.upstream.dropped.random + relay.counters.upstream.dropped.burst - drops0;
  assert.ok(dropped > 0.01 * packetsIn, `${name}: the relay dropped the lossy publisher's packets: ${JSON.stringify(relay.counters.upstream)}`);

  const keys = bucketKeys(h.bucketDir).filter((k) => k.endsWith('.m3u8') && k.includes(t0.sid));
  const track = (uid: number, kind: 'audio' | 'video'): Promise<TrackMeasure> => {
    const key = keys.find((k) => k.includes(`__uid_s_${uid}__`) && k.includes(`__uid_e_${kind}`));
    assert.ok(key, `${name}: ${kind} playlist of uid ${uid} in ${JSON.stringify(keys)}`);
    return measureTrack(`${h.bucketDir}/${key}`, 0);
  };
  const [lv, la, cv, ca] = await Promise.all([track(101, 'video'), track(101, 'audio'), track(102, 'video'), track(102, 'audio')]);
  const since = (metric: string, labels?: Record<string, string>) => m.sum(metric, labels) - m0.sum(metric, labels);
  const figures = {
    phase: name,
    dropped,
    video: { lossy: lv.frames, clean: cv.frames, lossySent: lossy1.videoFrames - lossy0.videoFrames, cleanSent: clean1.videoFrames - clean0.videoFrames },
    timestampWarnings: lv.timestampWarnings + cv.timestampWarnings,
    audio: { lossy: la.frames, clean: ca.frames, lossyByPts: keptByPts(la, 0), cleanByPts: keptByPts(ca, 0) },
    nackOut: since('reeltime_rtcp_nack_total', { direction: 'out' }),
    rtxIn: since('reeltime_rtp_rtx_packets_total', { direction: 'in' }),
    recorderLost: since('reeltime_recorder_rtp_lost_total'),
    framesDropped: since('reeltime_recorder_video_frames_dropped_total'),
    concealed: since('reeltime_recorder_audio_concealed_total'),
  };
  t.diagnostic(JSON.stringify(figures));
  assert.deepEqual([...lv.errorLines, ...la.errorLines, ...cv.errorLines, ...ca.errorLines], [], `${name}: no decode error in any slice`);
  assert.ok(figures.rtxIn > 0, `${name}: Chromium repaired over RTX: ${JSON.stringify(figures)}`);
  // Chromium's frame rate follows its capturer and encoder (each page's own, under this machine's load), so each
  // page's recorded frames are taken over the frames it sent in the same span (getStats framesSent), and the lossy
  // page's share against the clean one's. Recorded frames are counted per second of the track's own media span: a
  // delayed link (the bursts' 50±30 ms) starts and ends the lossy track up to a frame later than the control at each
  // edge, which says nothing about loss (2 of 405 frames, 0.995 by plain counts, in the run that found it). One
  // packet lost for good costs the frames until Chromium's keyframe after the node's PLI: 10 in a whole-suite run
  // with other files beside this one (0.955), 15 at three files at once (0.949); this file runs alone
  // (scripts/test-lanes.mjs, RUNS_ALONE) and a failure runs once more alone.
  const perSecond = (x: TrackMeasure) => x.frames / Math.max(0.001, x.slotSec);
  const kept = (perSecond(lv) / perSecond(cv)) * (Math.max(1, figures.video.cleanSent) / Math.max(1, figures.video.lossySent));
  const keptByCount = lv.frames / Math.max(1, figures.video.lossySent) / (cv.frames / Math.max(1, figures.video.cleanSent));
  t.diagnostic(`${name}: video kept against the control, per frame sent: ${kept.toFixed(4)} per second of track (${keptByCount.toFixed(4)} by plain counts; spans ${lv.slotSec.toFixed(2)} s and ${cv.slotSec.toFixed(2)} s)`);
  assert.ok(kept >= 0.995, `${name}: video frames kept against the control ${kept.toFixed(4)}: ${JSON.stringify(figures)}`);
  // Audio: Chromium sends RED (RFC 2198) when the node's answer lists it first: a lost Opus packet comes back from
  // the next packet's redundant copy (werift's receiver unwraps it), so few are lost for good (3 of ~50 lost on
  // the link, against 46-56 concealed before RED was negotiated). A burst longer than RED's one redundant copy
  // loses the rest for good: concealed.
  const audioSent = lossy1.audioPackets - lossy0.audioPackets;
  assert.ok(figures.concealed <= 0.015 * audioSent, `${name}: RED repaired most audio losses: ${figures.concealed} concealed of ${audioSent} sent (${JSON.stringify(figures)})`);
  // 20 ms Opus packets, concealed when lost for good, so frame slots and frame counts both.
  assert.ok(keptByPts(la, 0) >= 0.995, `${name}: audio frame slots kept: ${JSON.stringify(figures)}`);
  assert.ok(la.frames >= 0.98 * ca.frames, `${name}: audio frames against the control: ${JSON.stringify(figures)}`);
}

function startRecordingOf(h: Harness, cname: string): Promise<{ resourceId: string; sid: string }> {
  return h.startRecording(cname, '9000', {
    token: rtcToken(cname, 9000, 2),
    storageConfig: storageConfig(),
    recordingConfig: { channelType: 0, streamMode: 'default', subscribeUidGroup: 0 },
    recordingFileConfig: { avFileType: ['hls'] },
  });
}
