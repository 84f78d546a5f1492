/**
 * Loss benchmark (issue 27): what an individual recording keeps when the publisher's uplink loses packets.
 * For each setting, one in-process reeltime whose node announces its ICE ports shifted by `channel.icePortOffset`,
 * an impairment relay (src/impairment) on the shifted ports in front of it, and two replay synthetic publishers
 * (werift: VP8 + Opus, H.264 + Opus) whose ICE, DTLS and media all go through the relay. The recorder (in-process
 * tap, `default` stream mode: video copied, Opus → AAC) records RECORD_SECONDS of each; then ffprobe counts the
 * frames of each HLS playlist and `ffmpeg -v error … -f null -` the decode error lines.
 *
 * Figures per publisher:
 * - video / audio vs sent: recorded frames over what the publisher sent between start and stop (video frames from
 *   its frame callback, audio as 20 ms Opus packets turned into AAC frames), divided by the same ratio of the 0 %
 *   setting (the clean control, first in the list): the recorder's start latency and tail cancel out.
 * - video by pts: recorded frames over the frame slots of each slice’s pts span: the share of the frame slots in the recorded span that
 *   have a frame, independent of the control.
 * - NACKs: `reeltime_rtcp_nack_total{direction="out"}` (werift's receiver's NACKs to the publishers) during the run.
 * - recorder repair (both publishers, docs/recording-individual.md "Loss"): video packets given up after the jitter
 *   buffer's hold (`reeltime_recorder_rtp_lost_total{kind="video"}`), Opus packets concealed, keyframe requests.
 * - relay drops: datagrams the relay dropped (both directions; only the uplink is impaired).
 * - CPU vs 0 %: this process's CPU (node, recorder, publishers, relay) and its slicer ffmpegs' (waited for at the
 *   stop) from the recording's start to the stop's answer (the slicers have ended), over the same figure of the 0 % setting: what repair adds.
 *
 * BENCH_PUBLISHER=chromium: two Chromium publishers instead (the call page with its fake camera and microphone, VP8
 * and H.264 by its `?codec=`, Opus with RED; sent frames and packets from its getStats), their ICE, DTLS and media
 * through the relay too.
 *
 *   node --import tsx bench/loss/index.ts   (BENCH_SECONDS=20; BENCH_SETTINGS=2,3: those indexes of SETTINGS, after the 0 % control;
 *                                          BENCH_PUBLISHER=werift (default) or chromium; BENCH_HANDSHAKE_LOSS=1: Chromium's
 *                                          handshakes through the lossy link too)
 * Nothing leaves loopback.
 */
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { portRangeMappings, startImpairmentRelay, gilbertForBursts, type LinkImpairment } from '../../src/impairment/index.ts';
import { freeShiftedRanges } from '../../src/impairment/testing/index.ts';
import { APP, connectedPublisher, rtcToken, startHarness, storageConfig } from '../../src/recorders/individual/testing/harness.ts';
import { measureTrack, type TrackMeasure } from '../../src/recorders/individual/testing/loss-checks.ts';
import { cpuWithReapedChildrenSeconds, loadAverage } from '../mix/proc-cpu.ts';
import { bucketKeys, sleep } from '../../src/recorders/individual/testing/media-checks.ts';
import { joinCallPage, sentSoFar } from '../../src/testing/call-page.ts';
import { launchTestChromium, type TestChromium } from '../../src/testing/chromium.ts';

const RECORD_SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const PORTS = 16;
const FPS = 15;
const OPUS_PACKET_SEC = 0.02;

interface Setting {
  readonly name: string;
  readonly uplink: LinkImpairment;
}
/** The first one is the clean control the "vs sent" figures are divided by. */
const SETTINGS: readonly Setting[] = [
  { name: '0 %', uplink: {} },
  { name: '1 % random', uplink: { loss: 0.01 } },
  { name: '2 % random', uplink: { loss: 0.02 } },
  { name: '5 % random', uplink: { loss: 0.05 } },
  { name: '2 % bursts (mean 3), 50±30 ms jitter', uplink: { burst: gilbertForBursts(0.02, 3), delayMs: 50, jitterMs: 30 } },
  { name: '10 % random', uplink: { loss: 0.1 } },
  { name: '20 % random', uplink: { loss: 0.2 } },
];
const picked = process.env.BENCH_SETTINGS?.split(',').map(Number);
const settings = picked ? SETTINGS.filter((_, i) => i === 0 || picked.includes(i)) : SETTINGS;

const CHROMIUM = process.env.BENCH_PUBLISHER === 'chromium';
const PUBLISHERS: readonly { uid: number; codec: 'vp8' | 'h264'; color: string; toneHz: number }[] = CHROMIUM
  ? [
      { uid: 1001, codec: 'vp8', color: '', toneHz: 0 },
      { uid: 1002, codec: 'h264', color: '', toneHz: 0 },
    ]
  : [
      { uid: 1001, codec: 'vp8', color: 'red', toneHz: 440 },
      { uid: 1002, codec: 'h264', color: 'blue', toneHz: 660 },
    ];
const PUBLISHER_LABEL = CHROMIUM ? ' (Chromium)' : '';
const LOSS_AFTER_CONNECT = CHROMIUM && process.env.BENCH_HANDSHAKE_LOSS !== '1';

/** A publisher of the run and what it has sent so far. */
interface BenchPublisher {
  readonly codec: string;
  sent(): Promise<{ readonly frames: number; readonly audio: number }>;
  stop(): Promise<void>;
}

let browser: TestChromium | undefined;

async function startPublisher(url: string, cname: string, p: (typeof PUBLISHERS)[number]): Promise<BenchPublisher> {
  if (CHROMIUM) {
    browser ??= await launchTestChromium();
    const page: Page = await joinCallPage(browser, url, cname, p.uid, p.codec);
    return {
      codec: p.codec,
      sent: async () => {
        const s = await sentSoFar(page);
        return { frames: s.videoFrames, audio: s.audioPackets };
      },
      stop: () => page.close(),
    };
  }
  const frames = { n: 0 };
  const pub = await connectedPublisher({
    baseUrl: url,
    appId: APP,
    cname,
    uid: p.uid,
    token: rtcToken(cname, p.uid),
    color: p.color,
    toneHz: p.toneHz,
    codec: p.codec,
    fps: FPS,
    mode: 'replay',
    onVideoFrame: () => frames.n++,
  });
  return { codec: p.codec, sent: async () => ({ frames: frames.n, audio: pub.packets.audio }), stop: () => pub.stop() };
}

interface Row {
  readonly setting: string;
  readonly codec: string;
  readonly videoRatio: number;
  readonly audioRatio: number;
  readonly videoByPts: number;
  readonly decodeErrors: number;
  readonly nacks: number;
  readonly videoLostAfterRepair: number;
  readonly audioConcealed: number;
  readonly keyframeRequests: number;
  readonly relayDrops: number;
  readonly cpuVsControl: number;
  readonly sent: { readonly frames: number; readonly audioPackets: number };
  readonly recorded: { readonly videoFrames: number; readonly audioFrames: number };
}

/** The counters the table reads from /metrics: the SFU's NACKs to publishers and the recorder's loss repair. */
interface Counters {
  readonly nacks: number;
  readonly videoLostAfterRepair: number;
  readonly audioConcealed: number;
  readonly keyframeRequests: number;
}

async function counters(url: string): Promise<Counters> {
  const res = await fetch(`${url}/metrics`);
  const text = res.ok ? await res.text() : '';
  const sum = (name: string, kind: string) =>
    [...text.matchAll(new RegExp(`^${name}\\{kind="${kind}"\\} (\\d+)`, 'gm'))].reduce((n, m) => n + Number(m[1]), 0);
  const m = /^reeltime_rtcp_nack_total\{direction="out"\} (\d+)/m.exec(text);
  return {
    nacks: m ? Number(m[1]) : Number.NaN,
    videoLostAfterRepair: sum('reeltime_recorder_rtp_lost_total', 'video'),
    audioConcealed: sum('reeltime_recorder_audio_concealed_total', 'audio'),
    keyframeRequests: sum('reeltime_recorder_keyframe_requests_total', 'video'),
  };
}

interface Raw {
  readonly codec: string;
  readonly video: TrackMeasure;
  readonly audio: TrackMeasure;
  readonly sentFrames: number;
  readonly sentAudioPackets: number;
  /** The publisher's frame rate: FPS for werift's, Chromium's own (its fake camera's, measured over the run). */
  readonly fps: number;
}

async function runSetting(
  s: Setting,
): Promise<{ raws: Raw[]; nacks: number; videoLostAfterRepair: number; audioConcealed: number; keyframeRequests: number; relayDrops: number; cpuMs: number }> {
  const { nodeMin, offset } = await freeShiftedRanges(PORTS);
  const h = await startHarness({
    channel: { udpPortMin: nodeMin, udpPortMax: nodeMin + PORTS - 1, icePortOffset: offset, idleTimeoutMs: 60_000 },
  });
  const relay = await startImpairmentRelay({
    mappings: portRangeMappings({ address: '127.0.0.1', port: nodeMin + offset }, { address: '127.0.0.1', port: nodeMin }, PORTS),
    // A Chromium publisher's handshakes go through a clean link and the loss starts once it publishes: through 10 %
    // loss from the start its DTLS handshake with the node (the node is the DTLS client there) did not complete in 3
    // of 9 runs (docs/impairment.md, "Chromium publishers"), and then there is nothing to measure.
    // BENCH_HANDSHAKE_LOSS=1: from the start for Chromium too.
    upstream: LOSS_AFTER_CONNECT ? {} : s.uplink,
    seed: 27,
  });
  const pubs: BenchPublisher[] = [];
  try {
    const cname = 'bench-loss';
    for (const p of PUBLISHERS) pubs.push(await startPublisher(h.server.url, cname, p));
    if (LOSS_AFTER_CONNECT) relay.setLink('upstream', s.uplink);
    const before = await counters(h.server.url);
    const cpu0 = cpuWithReapedChildrenSeconds();
    const uid = '9000';
    const t = await h.startRecording(cname, uid, {
      token: rtcToken(cname, Number(uid), 2),
      storageConfig: storageConfig(),
      recordingConfig: { channelType: 0, streamMode: 'default', subscribeUidGroup: 0 },
      recordingFileConfig: { avFileType: ['hls'] },
    });
    const sent0 = await Promise.all(pubs.map((p) => p.sent()));
    const sentFrom = Date.now();
    await sleep(RECORD_SECONDS * 1000);
    const sent1 = await Promise.all(pubs.map((p) => p.sent()));
    const sentSec = (Date.now() - sentFrom) / 1000;
    const stop = await h.api('POST', h.path(t.resourceId, t.sid, 'stop'), { cname, uid, clientRequest: {} });
    if (stop.status !== 200) throw new Error(`stop: ${stop.status} ${JSON.stringify(stop.body)}`);
    const cpuMs = (cpuWithReapedChildrenSeconds() - cpu0) * 1000;
    const after = await counters(h.server.url);
    const keys = bucketKeys(h.bucketDir).filter((k) => k.endsWith('.m3u8'));
    const raws: Raw[] = [];
    for (const [i, p] of PUBLISHERS.entries()) {
      const of = (kind: 'audio' | 'video') => keys.find((k) => k.includes(`__uid_s_${p.uid}__`) && k.includes(`__uid_e_${kind}`));
      const v = of('video');
      const a = of('audio');
      if (!v || !a) throw new Error(`no ${v ? 'audio' : 'video'} playlist of uid ${p.uid} in ${JSON.stringify(keys)}`);
      // The codec recorded is the one asked for (VP8 slices are WebM, H.264 slices MPEG-TS).
      const container = /\.(webm|ts)\s/.exec(readFileSync(`${h.bucketDir}/${v}`, 'utf8'))?.[1];
      if (container !== (p.codec === 'vp8' ? 'webm' : 'ts')) throw new Error(`uid ${p.uid} was to send ${p.codec}; its video slices are ${container}`);
      const fps = CHROMIUM ? (sent1[i]!.frames - sent0[i]!.frames) / sentSec : FPS;
      raws.push({
        codec: p.codec,
        video: await measureTrack(`${h.bucketDir}/${v}`, 1 / fps),
        audio: await measureTrack(`${h.bucketDir}/${a}`, 0),
        sentFrames: sent1[i]!.frames - sent0[i]!.frames,
        sentAudioPackets: sent1[i]!.audio - sent0[i]!.audio,
        fps,
      });
    }
    const drops = (c: typeof relay.counters.upstream) => c.dropped.random + c.dropped.burst + c.dropped.queue;
    return {
      raws,
      nacks: after.nacks - before.nacks,
      videoLostAfterRepair: after.videoLostAfterRepair - before.videoLostAfterRepair,
      audioConcealed: after.audioConcealed - before.audioConcealed,
      keyframeRequests: after.keyframeRequests - before.keyframeRequests,
      relayDrops: drops(relay.counters.upstream) + drops(relay.counters.downstream),
      cpuMs,
    };
  } finally {
    await Promise.all(pubs.map((p) => p.stop().catch(() => undefined)));
    await relay.close();
    await h.close();
  }
}

const videoSentRatio = (r: Raw) => r.video.frames / Math.max(1, r.sentFrames);
const audioSentRatio = (r: Raw) => (r.audio.frames * 1024) / Math.max(1, r.audio.sampleRate) / Math.max(1e-9, r.sentAudioPackets * OPUS_PACKET_SEC);

const rows: Row[] = [];
let control: Raw[] | undefined;
let controlCpuMs: number | undefined;
const started = Date.now();
for (const s of settings) {
  const before = loadAverage();
  const r = await runSetting(s);
  control ??= r.raws;
  controlCpuMs ??= r.cpuMs;
  for (const raw of r.raws) {
    const c = control.find((x) => x.codec === raw.codec)!;
    const row: Row = {
      setting: s.name,
      codec: raw.codec,
      videoRatio: videoSentRatio(raw) / videoSentRatio(c),
      audioRatio: audioSentRatio(raw) / audioSentRatio(c),
      videoByPts: raw.video.frames / Math.max(1, raw.video.slotSec * raw.fps),
      decodeErrors: raw.video.decodeErrors + raw.audio.decodeErrors,
      nacks: r.nacks,
      videoLostAfterRepair: r.videoLostAfterRepair,
      audioConcealed: r.audioConcealed,
      keyframeRequests: r.keyframeRequests,
      relayDrops: r.relayDrops,
      cpuVsControl: r.cpuMs / Math.max(1, controlCpuMs),
      sent: { frames: raw.sentFrames, audioPackets: raw.sentAudioPackets },
      recorded: { videoFrames: raw.video.frames, audioFrames: raw.audio.frames },
    };
    rows.push(row);
    console.log(JSON.stringify({ ...row, loadBefore: before, loadAfter: loadAverage() }));
  }
}

await browser?.close();

const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
console.log(`\nloss bench, ${new Date().toISOString().slice(0, 10)}, ${RECORD_SECONDS} s recorded per setting, ${Math.round((Date.now() - started) / 1000)} s in all`);
console.log(
  '| uplink | publisher | video kept vs sent | video kept by pts | audio kept vs sent | decode error lines | NACKs sent by the SFU | relay drops | video packets lost after repair | audio packets concealed | keyframe requests | CPU vs 0 % |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const r of rows) {
  console.log(
    `| ${r.setting} | ${r.codec} + Opus${PUBLISHER_LABEL} | ${pct(r.videoRatio)} | ${pct(r.videoByPts)} | ${pct(r.audioRatio)} | ${r.decodeErrors} | ${r.nacks} | ${r.relayDrops} | ${r.videoLostAfterRepair} | ${r.audioConcealed} | ${r.keyframeRequests} | ${r.cpuVsControl.toFixed(2)} |`,
  );
}
