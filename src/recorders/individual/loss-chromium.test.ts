// Chromium publishers (the call page; a canvas camera and a WebAudio microphone that mark the same instants,
// `markedDevices`) recorded through the impairment relay, VP8 and H.264: per codec one page with 5 % uplink loss, one
// with 2 % loss in bursts and 50±30 ms of jitter, and a clean one as their control, in one channel and one individual
// recording. Chromium answers the node's NACKs over RTX and its PLIs with a keyframe, so each lossy recording should
// keep what its control keeps, its A/V offset too.
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import type { Page } from 'playwright-core';
import { gilbertForBursts, portRangeMappings, startImpairmentRelay, type ImpairmentRelay, type LinkImpairment } from '../../impairment/index.ts';
import { freeShiftedRanges, udpPortsFree } from '../../impairment/testing/index.ts';
import { scrape } from '../../metrics/testing.ts';
import { launchTestChromium, type TestChromium } from '../../testing/chromium.ts';
import { waitUntil } from '../../testing/wait.ts';
import { rtcToken, startHarness, storageConfig } from './testing/harness.ts';
import { keptByPts, measureTrack, type TrackMeasure } from './testing/loss-checks.ts';
import { bucketKeys } from './testing/media-checks.ts';
import { FRAME_CODE } from '../../channel/index.ts';
import { joinCallPage, markedDevices, sentSoFar, type ChromiumSent, type MarkedDevices } from '../../testing/call-page.ts';
import { avOffsets, playlistFrameCodes, type MarkedMedia } from './testing/av-offset.ts';

/** Of the publishers' media, recorded (Chromium's own count of Opus packets sent: 50 a second). */
const RECORD_SECONDS = 20;

/** The pages' camera and microphone (`markedDevices`): 32 frames a period, so the 10-bit frame code's period marks survive its wrap. */
const MARKS = { fps: 16, width: 320, height: 180, toneHz: 440, periodSec: 2 } as const satisfies MarkedMedia;

const CODECS = ['vp8', 'h264'] as const;
type Codec = (typeof CODECS)[number];

/** The lossy links, each against the clean page of the same codec. */
const LINKS: readonly { readonly name: string; readonly link: LinkImpairment; readonly videoBoundTodo?: string }[] = [
  { name: '5 %', link: { loss: 0.05 } },
  {
    name: '2 % bursts, 50±30 ms jitter',
    link: { burst: gilbertForBursts(0.02, 3), delayMs: 50, jitterMs: 30 },
    // Fresh-clone runs of 2026-11-30 missed 1 to 19 frames of the VP8 page (H.264 none): three times Chromium had
    // not resent a packet within the node's NACK deadline, twice every packet had arrived and one or two frames still
    // were not in the file (Chromium's pacer had flushed them at a keyframe: session 29, the recorder's redundant one
    // at a slicer's start is gone, the slice marks' remain). Asserted: the floor of one freeze (90 %).
    videoBoundTodo: 'Chromium resent a packet too late (a freeze to its next keyframe), or its pacer flushed queued frames at a slice-mark keyframe (docs/recording-individual.md)',
  },
];

// A page function (the call page's Content-Security-Policy forbids evaluating strings).
const leftChannel = () => (window as unknown as { reeltime: { joined: boolean } }).reeltime.joined === false;

interface Publisher {
  readonly uid: number;
  readonly codec: Codec;
  /** Its lossy link, or undefined for a codec's clean control. */
  readonly lossy?: (typeof LINKS)[number];
  readonly relay: ImpairmentRelay;
  readonly page: Page;
}

test('Chromium, VP8 and H.264, through 5 % uplink loss and through 2 % bursts with 50±30 ms jitter, recorded beside a clean Chromium of the same codec: no decode error, video and audio kept as the control', { timeout: 300_000 }, async (t) => {
  // Per codec, three pages in one recording. Each lossy page's WHIP session binds the next of the node's lowest media
  // ports (werift takes the lowest free one), reached through its own relay alone; the clean page's binds the one
  // after them, behind the clean relay. The pages watch nobody (their WHEP requests are refused in the browser): no
  // view takes a port between two publishers, and pages decoding each other would load the CPU the test measures
  // (six pages at once, each codec's three beside the other's, lost VP8 frames to late repairs: 0.973).
  const ports = LINKS.length + 3;
  const { nodeMin, offset } = await freeShiftedRanges(ports);
  const h = await startHarness({ channel: { udpPortMin: nodeMin, udpPortMax: nodeMin + ports - 1, icePortOffset: offset, idleTimeoutMs: 60_000 } });
  const relays: ImpairmentRelay[] = [];
  let browser: TestChromium | undefined;
  try {
    const at = (port: number) => ({ address: '127.0.0.1', port });
    for (const [i] of LINKS.entries()) relays.push(await startImpairmentRelay({ mappings: portRangeMappings(at(nodeMin + i + offset), at(nodeMin + i), 1), seed: 27 + i }));
    const clean = await startImpairmentRelay({ mappings: portRangeMappings(at(nodeMin + LINKS.length + offset), at(nodeMin + LINKS.length), ports - LINKS.length), seed: 99 });
    relays.push(clean);
    browser = await launchTestChromium(['--autoplay-policy=no-user-gesture-required']);
    for (const [c, codec] of CODECS.entries()) {
      const cname = `chromium-loss-${codec}`;
      const publishers: Publisher[] = [];
      // Frame 0 and the first tone at the next whole second; the frame code wraps 64 s later, after this codec's pages.
      const epochMs = Math.ceil(Date.now() / 1000) * 1000;
      const devices: MarkedDevices = {
        tone: { epochMs, periodMs: MARKS.periodSec * 1000, hz: MARKS.toneHz, half: 'first' },
        canvas: { epochMs, fps: MARKS.fps, width: MARKS.width, height: MARKS.height, ...FRAME_CODE },
      };
      const join = async (uid: number, relay: ImpairmentRelay, lossy?: (typeof LINKS)[number]) => {
        const before = relay.counters.upstream.packetsIn;
        const page = await joinCallPage(browser!, h.server.url, cname, uid, codec, {
          prepare: async (p) => {
            await p.addInitScript(markedDevices, devices);
            await p.route((url) => url.pathname.endsWith('/whep'), (route) => route.abort());
          },
        });
        await waitUntil(() => relay.counters.upstream.packetsIn > before + 50, { what: `uid ${uid}'s media through its relay`, timeoutMs: 30_000 });
        publishers.push({ uid, codec, relay, page, ...(lossy ? { lossy } : {}) });
      };
      for (const [i, lossy] of LINKS.entries()) await join(100 * (c + 1) + i + 1, relays[i]!, lossy);
      await join(100 * (c + 1), clean);
      // Loss from here on: the handshakes above were clean (docs/impairment.md, "Changing a link").
      for (const p of publishers) p.relay.setLink('upstream', p.lossy?.link ?? {});
      await recordAll(t, { h, cname, publishers });
      for (const p of publishers) p.relay.setLink('upstream', {});
      // The pages leave; the next codec's sessions take the same ports once the node has let them go.
      const leaving = Date.now();
      // The page's Leave (its WHIP DELETE answered) before the page goes: a closed page's session would otherwise
      // wait for the node's idle timeout.
      for (const p of publishers) {
        await p.page.click('#leaveBtn');
        await p.page.waitForFunction(leftChannel, undefined, { timeout: 30_000 });
        await p.page.close();
      }
      await waitUntil(() => udpPortsFree(nodeMin, LINKS.length + 1), { what: 'the node’s media ports let go', timeoutMs: 60_000, intervalMs: 200 });
      t.diagnostic(`${codec}: the pages left and the node let their ports go in ${Date.now() - leaving} ms`);
    }
  } finally {
    await browser?.close();
    await Promise.all(relays.map((r) => r.close()));
    await h.close();
  }
});

type Harness = Awaited<ReturnType<typeof startHarness>>;

/** One recording of every page; each lossy page against its codec's clean one. */
async function recordAll(t: TestContext, { h, cname, publishers }: { h: Harness; cname: string; publishers: readonly Publisher[] }): Promise<void> {
  const m0 = await scrape(h.server.url);
  const counters0 = new Map(publishers.map((p) => [p.uid, { ...p.relay.counters.upstream, dropped: { ...p.relay.counters.upstream.dropped } }]));
  const t0 = await startRecordingOf(h, cname);
  const sent = async () => new Map(await Promise.all(publishers.map(async (p) => [p.uid, await sentSoFar(p.page)] as [number, ChromiumSent])));
  const sent0 = await sent();
  const first = publishers[0]!;
  await waitUntil(async () => (await sentSoFar(first.page)).audioPackets - sent0.get(first.uid)!.audioPackets >= RECORD_SECONDS * 50, {
    timeoutMs: RECORD_SECONDS * 1000 + 60_000,
    intervalMs: 500,
    what: 'the first publisher’s audio packets',
  });
  const sent1 = await sent();
  const m = await scrape(h.server.url);
  const stop = await h.api('POST', h.path(t0.resourceId, t0.sid, 'stop'), { cname, uid: '9000', clientRequest: {} });
  assert.equal(stop.status, 200, JSON.stringify(stop.body));

  const keys = bucketKeys(h.bucketDir).filter((k) => k.endsWith('.m3u8') && k.includes(t0.sid));
  const playlist = (uid: number, kind: 'audio' | 'video'): string => {
    const key = keys.find((k) => k.includes(`__uid_s_${uid}__`) && k.includes(`__uid_e_${kind}`));
    assert.ok(key, `${kind} playlist of uid ${uid} in ${JSON.stringify(keys)}`);
    return `${h.bucketDir}/${key}`;
  };
  const track = (uid: number, kind: 'audio' | 'video'): Promise<TrackMeasure> => measureTrack(playlist(uid, kind), 0);
  const measured = new Map(
    await Promise.all(
      publishers.map(async (p) => {
        const [video, audio] = [await track(p.uid, 'video'), await track(p.uid, 'audio')];
        const codes = await playlistFrameCodes(playlist(p.uid, 'video'), MARKS);
        return [p.uid, { video, audio, avOffsetsMs: await avOffsets(playlist(p.uid, 'video'), playlist(p.uid, 'audio'), MARKS), codes }] as const;
      }),
    ),
  );
  const since = (metric: string, labels?: Record<string, string>) => m.sum(metric, labels) - m0.sum(metric, labels);
  const node = {
    nackOut: since('reeltime_rtcp_nack_total', { direction: 'out' }),
    rtxIn: since('reeltime_rtp_rtx_packets_total', { direction: 'in' }),
    recorderLost: since('reeltime_recorder_rtp_lost_total'),
    // Lost at the recorder but arrived later (its hold too short), and given up by the node (no answer in time).
    recorderLate: since('reeltime_recorder_rtp_late_total'),
    nodeUnrepaired: since('reeltime_rtp_unrepaired_total'),
    framesDropped: since('reeltime_recorder_video_frames_dropped_total'),
    concealed: since('reeltime_recorder_audio_concealed_total'),
  };
  t.diagnostic(JSON.stringify(node));
  for (const p of publishers) {
    const { video, audio } = measured.get(p.uid)!;
    assert.deepEqual([...video.errorLines, ...audio.errorLines], [], `uid ${p.uid} (${p.codec}): no decode error in any slice`);
  }
  assert.ok(node.rtxIn > 0, `Chromium repaired over RTX: ${JSON.stringify(node)}`);
  // Video is judged by the frame numbers each page draws into its picture (`markedDevices`): of the numbers from a
  // track's first frame to its last, the share the file holds, lossy page against its control. A lost frame, or one
  // dropped until the next keyframe, is a number missing inside the track; the track's edges (the recording's start
  // and stop, a delayed link's later first frame) are not. (Counting frames against Chromium's framesSent instead
  // read 0.991-0.993 for a bursty VP8 page whose file missed one frame number: its edges, not its losses.) One packet
  // lost for good costs the frames until Chromium's keyframe after the node's PLI: 10 in a whole-suite run with
  // other files beside this one (0.955), 15 at three files at once (0.949); this file runs alone
  // (scripts/test-lanes.mjs, RUNS_ALONE) and a failure runs once more alone.
  const inside = (codes: readonly (number | undefined)[]) => {
    const known: number[] = [];
    // Unwrapped: the 10-bit code starts over every 1024 frames (64 s at 16 fps).
    for (const c of codes) if (c !== undefined) known.push(known.length === 0 ? c : known.at(-1)! + (((c - known.at(-1)!) % 1024) + 1024) % 1024);
    const missing: number[] = [];
    for (let i = 1; i < known.length; i++) for (let c = known[i - 1]! + 1; c < known[i]!; c++) missing.push(c % 1024);
    const span = known.length === 0 ? 0 : known.at(-1)! - known[0]! + 1;
    // A frame whose band does not read (none in the runs so far) still counts as there.
    const unreadable = codes.length - known.length;
    return { kept: span === 0 ? 0 : Math.min(1, (new Set(known).size + unreadable) / span), missing, unreadable };
  };
  for (const p of publishers) {
    if (!p.lossy) continue;
    const control = publishers.find((c) => c.codec === p.codec && !c.lossy)!;
    const what = `${p.lossy.name} ${p.codec} (uid ${p.uid})`;
    const [lv, la] = [measured.get(p.uid)!.video, measured.get(p.uid)!.audio];
    const [cv, ca] = [measured.get(control.uid)!.video, measured.get(control.uid)!.audio];
    const sentVideo = (uid: number) => Math.max(1, sent1.get(uid)!.videoFrames - sent0.get(uid)!.videoFrames);
    // Frames the page drew that its encoder skipped (libvpx's frame dropper, on in WebRTC's VP8: a frame over the
    // rate controller's budget, as after a large keyframe on a link the estimate has narrowed): never sent.
    const encoderSkipped = (uid: number) => {
      const [a, b] = [sent0.get(uid)!, sent1.get(uid)!];
      return b.videoCaptured - a.videoCaptured - (b.videoEncoded - a.videoEncoded);
    };
    const audioSent = sent1.get(p.uid)!.audioPackets - sent0.get(p.uid)!.audioPackets;
    const c0 = counters0.get(p.uid)!;
    const up = p.relay.counters.upstream;
    const dropped = up.dropped.random + up.dropped.burst - c0.dropped.random - c0.dropped.burst;
    const [lossyFrames, controlFrames] = [inside(measured.get(p.uid)!.codes), inside(measured.get(control.uid)!.codes)];
    const figures = {
      dropped,
      packetsIn: up.packetsIn - c0.packetsIn,
      video: {
        lossy: lv.frames,
        clean: cv.frames,
        lossySent: sentVideo(p.uid),
        cleanSent: sentVideo(control.uid),
        missingInside: lossyFrames.missing,
        controlMissingInside: controlFrames.missing,
        encoderSkipped: [encoderSkipped(p.uid), encoderSkipped(control.uid)],
        unreadable: [lossyFrames.unreadable, controlFrames.unreadable],
      },
      audio: { lossy: la.frames, clean: ca.frames, lossyByPts: keptByPts(la, 0), sent: audioSent },
    };
    t.diagnostic(`${what}: ${JSON.stringify(figures)}`);
    assert.ok(dropped > 0.01 * figures.packetsIn, `${what}: the relay dropped its packets: ${JSON.stringify(up)}`);
    const kept = lossyFrames.kept / Math.max(0.001, controlFrames.kept);
    const keptPerSent = lv.frames / sentVideo(p.uid) / (cv.frames / sentVideo(control.uid));
    t.diagnostic(`${what}: video frames kept against the control ${kept.toFixed(4)} by frame number (${keptPerSent.toFixed(4)} per frame Chromium sent)`);
    // A packet Chromium did not resend within the node's NACK deadline (1 s; `reeltime_rtp_unrepaired_total`) is lost
    // upstream of reeltime, and the recording freezes until Chromium's keyframe (17-19 frames, about 1.1 s, in the
    // runs that saw it). Then, and under a link whose 99.5 % is not reliably met yet, the floor of one such freeze
    // is asserted and the figure reported; otherwise 99.5 %.
    const floorOnly = p.lossy.videoBoundTodo !== undefined || node.nodeUnrepaired > 0;
    assert.ok(kept >= (floorOnly ? 0.9 : 0.995), `${what}: video frames kept against the control ${kept.toFixed(4)}: ${JSON.stringify(figures)}`);
    if (p.lossy.videoBoundTodo !== undefined) {
      await t.test(`${what}: video ≥ 99.5 % of the control's`, { todo: p.lossy.videoBoundTodo }, () => assert.ok(kept >= 0.995, kept.toFixed(4)));
    } else if (kept < 0.995) t.diagnostic(`${what}: ${kept.toFixed(4)} of the control's frames, not failed: the node gave up ${node.nodeUnrepaired} packet(s) Chromium did not resend in time`);
    // 20 ms Opus packets, concealed when lost for good, so frame slots and frame counts both. Chromium sends RED
    // (RFC 2198) when the node's answer lists it first: a lost Opus packet comes back from the next packet's
    // redundant copy (werift's receiver unwraps it); a burst longer than that one copy is concealed.
    assert.ok(keptByPts(la, 0) >= 0.995, `${what}: audio frame slots kept: ${JSON.stringify(figures)}`);
    assert.ok(la.frames >= 0.98 * ca.frames, `${what}: audio frames against the control: ${JSON.stringify(figures)}`);
    // A/V: the marks' offsets (audio minus video, `avOffsets`) as in the control's recording and within 40 ms.
    const offsets = measured.get(p.uid)!.avOffsetsMs;
    const controlOffsets = measured.get(control.uid)!.avOffsetsMs;
    t.diagnostic(`${what}: A/V offsets ${offsets.map((o) => o.toFixed(0)).join(', ')} ms; control ${controlOffsets.map((o) => o.toFixed(0)).join(', ')} ms`);
    assert.ok(offsets.length >= 3 && controlOffsets.length >= 3, `${what}: at least three marked instants in both tracks of both pages`);
    const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    assert.ok(Math.abs(median(offsets) - median(controlOffsets)) <= 40, `${what}: A/V offset ${median(offsets).toFixed(0)} ms (median) against the control's ${median(controlOffsets).toFixed(0)} ms`);
    // The page's marks are taken within a few ms of their instants (0-14 ms through loss, 4-6 ms for the control,
    // in the runs of 2026-11-30), so the offset in the file is the recording's own.
    assert.ok(Math.abs(median(offsets)) <= 40, `${what}: A/V offset ${median(offsets).toFixed(0)} ms (median)`);
  }
  // RED repaired most audio losses: Opus packets concealed (every lossy page) within 1.5 % of what they sent.
  const lossySent = publishers.filter((p) => p.lossy).reduce((n, p) => n + sent1.get(p.uid)!.audioPackets - sent0.get(p.uid)!.audioPackets, 0);
  assert.ok(node.concealed <= 0.015 * lossySent, `RED repaired most audio losses: ${node.concealed} concealed of ${lossySent} sent`);
}

function startRecordingOf(h: Harness, cname: string): Promise<{ resourceId: string; sid: string }> {
  return h.startRecording(cname, '9000', {
    token: rtcToken(cname, 9000, 2),
    storageConfig: storageConfig(),
    recordingConfig: { channelType: 0, streamMode: 'default', subscribeUidGroup: 0 },
    recordingFileConfig: { avFileType: ['hls'] },
  });
}
