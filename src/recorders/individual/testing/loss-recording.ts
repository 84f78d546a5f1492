/**
 * Recordings made through the impairment relay (issue 27): loss.test.ts and loss-fec.test.ts. Publishers, relays,
 * node and recorder run in this process.
 */
import assert from 'node:assert/strict';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { prepareReplay, type SyntheticPublisher, type SyntheticPublisherOptions } from '../../../channel/index.ts';
import { portRangeMappings, startImpairmentRelay, type ImpairmentRelay, type LinkImpairment } from '../../../impairment/index.ts';
import { freeShiftedRanges } from '../../../impairment/testing/index.ts';
import { waitUntil } from '../../../testing/wait.ts';
import { mapBounded } from '../../../testing/parallel.ts';
import { APP, connectedPublisher, rtcToken, startHarness, storageConfig } from './harness.ts';
import { audioDropouts, keptByPts, measureTrack, type TrackMeasure } from './loss-checks.ts';
import { avOffsets, type MarkedMedia } from './av-offset.ts';
import { bucketKeys } from './media-checks.ts';

export const FPS = 15;
/** A longer stall of this process than the recorder's shortest hold makes the video figures measure the machine. */
export const STALL_LIMIT_MS = 250;
const RECORD_SECONDS = 20;

/**
 * Three relays in front of one node, two node ports each: a session binds the lowest free port of the node's range,
 * so the publishers connected first (uplink 5 % loss) go through the first relay, the next two (10 %) through the
 * second and the last two (the clean control) through the third. All six are in one channel and one recording.
 */
export interface Group {
  readonly name: string;
  readonly uplink: LinkImpairment;
  readonly uidBase: number;
  /** Its publishers send Opus with in-band FEC (SyntheticMedia.opusFec). */
  readonly opusFec?: boolean;
  /** False: its publishers offer no NACK for Opus, so what the relay drops of their audio is lost for good. */
  readonly audioNack?: boolean;
}
export const CODECS = ['vp8', 'h264'] as const;

export interface Recorded {
  readonly video: TrackMeasure;
  readonly audio: TrackMeasure;
  /** With marked media: the A/V offsets the files show (av-offset.ts). */
  readonly avOffsetsMs: readonly number[];
  /** With `dropouts`: the audio's dropouts (audioDropouts). */
  readonly dropouts?: { readonly windows: number; readonly dropouts: number };
}

export interface RecordOptions {
  /** The recorder subscribes over WHEP, through one more relay with this node → recorder impairment. */
  readonly whep?: { readonly downlink: LinkImpairment };
  /** Publishers whose media marks one instant in both tracks (av-offset.ts), at this size; default 640×360, unmarked. */
  readonly marked?: MarkedMedia;
  readonly seconds?: number;
  /** Count each audio track's dropouts (audioDropouts). */
  readonly dropouts?: boolean;
}

/**
 * One recording of a VP8 and an H.264 publisher per group, all in one channel. One relay per group in front of one
 * node, two node ports each: a session binds the lowest free port of the node's range, so the first two publishers
 * go through the first relay, the next two through the second, and so on. Returns each stream's measures by
 * `group/codec`, and the /metrics text at the end. With `whep`, the recorder subscribes over WHEP (as a remote
 * recorder does) and its sessions, bound after the publishers', go through one more relay whose node → recorder
 * direction is impaired.
 */
export async function recordThroughRelays(
  groups: readonly Group[],
  { whep, marked, seconds = RECORD_SECONDS, dropouts }: RecordOptions = {},
): Promise<{ results: Map<string, Recorded>; metrics: string; whepRelay: ImpairmentRelay | undefined; maxStallMs: number }> {
  const ports = 2 * groups.length + (whep ? 2 * groups.length : 0) + 2;
  const { nodeMin, offset } = await freeShiftedRanges(ports);
  const h = await startHarness({
    channel: { udpPortMin: nodeMin, udpPortMax: nodeMin + ports - 1, icePortOffset: offset, idleTimeoutMs: 60_000 },
    ...(whep ? { recording: { mediaPath: 'whep' } } : {}),
  });
  const relays: ImpairmentRelay[] = [];
  const pubs: { group: string; codec: string; uid: number; pub: SyntheticPublisher }[] = [];
  try {
    const cname = 'loss-repair';
    for (const g of groups.keys()) {
      const first = nodeMin + 2 * g;
      // The last relay also covers the spare ports, in case a publisher's attempt had to be retried.
      const count = g === groups.length - 1 && !whep ? ports - 2 * g : 2;
      relays.push(
        await startImpairmentRelay({
          mappings: portRangeMappings({ address: '127.0.0.1', port: first + offset }, { address: '127.0.0.1', port: first }, count),
          seed: 27 + g,
        }),
      );
    }
    const whepRelay = whep
      ? await startImpairmentRelay({
          mappings: portRangeMappings(
            { address: '127.0.0.1', port: nodeMin + 2 * groups.length + offset },
            { address: '127.0.0.1', port: nodeMin + 2 * groups.length },
            ports - 2 * groups.length,
          ),
          downstream: whep.downlink,
          seed: 99,
        })
      : undefined;
    if (whepRelay) relays.push(whepRelay);
    const media = marked
      ? { width: marked.width, height: marked.height, toneHz: marked.toneHz, frameCode: true, toneTurns: { periodSec: marked.periodSec, half: 'first' as const } }
      : { toneHz: 440 };
    const optionsOf = (group: Group, codec: (typeof CODECS)[number]): SyntheticPublisherOptions => {
      const uid = group.uidBase + CODECS.indexOf(codec);
      const fec = { ...(group.opusFec ? { opusFec: true } : {}), ...(group.audioNack === false ? { audioNack: false } : {}) };
      return { baseUrl: h.server.url, appId: APP, cname, uid, token: rtcToken(cname, uid), color: 'red', codec, fps: FPS, mode: 'replay', ...media, ...fec };
    };
    // Each kind of publisher's media is encoded once, all kinds at once (each encode is paced, not CPU-bound), before
    // the first connects: one after another they took 4-9 s each.
    await Promise.all(groups.flatMap((group) => CODECS.map((codec) => prepareReplay(optionsOf(group, codec)))));
    for (const [g, group] of groups.entries()) {
      for (const codec of CODECS) {
        const options = optionsOf(group, codec);
        pubs.push({ group: group.name, codec, uid: options.uid, pub: await connectedPublisher(options) });
      }
      // Each pair went through its own relay: the later relays have carried nothing yet.
      for (const later of relays.slice(g + 1)) assert.equal(later.counters.upstream.packetsIn, 0, `the ${group.name} publishers went through their relay`);
    }
    // The publishers connect over clean links and the loss starts now, before the recording: through 5-10 % loss
    // werift's ICE and DTLS retransmissions took six publishers 10-20 s to connect, which no figure here is about.
    for (const [g, group] of groups.entries()) relays[g]!.setLink('upstream', group.uplink);
    const t = await h.startRecording(cname, '9000', {
      token: rtcToken(cname, 9000, 2),
      storageConfig: storageConfig(),
      recordingConfig: { channelType: 0, streamMode: 'default', subscribeUidGroup: 0 },
      recordingFileConfig: { avFileType: ['hls'] },
    });
    const lag = monitorEventLoopDelay({ resolution: 10 });
    lag.enable();
    // `seconds` of the publishers' media (their packet counts, not the wall clock, tell when).
    const audio0 = pubs[0]!.pub.packets.audio;
    await waitUntil(() => pubs[0]!.pub.packets.audio - audio0 >= seconds * 50, {
      timeoutMs: seconds * 1000 + 60_000,
      intervalMs: 250,
      what: 'publisher audio packets',
    });
    lag.disable();
    // Publishers, relays, node and recorder share this process's event loop: a stall of it shows as loss.
    console.log(`event loop delay: p50 ${(lag.percentile(50) / 1e6).toFixed(0)} ms, p99 ${(lag.percentile(99) / 1e6).toFixed(0)} ms, max ${(lag.max / 1e6).toFixed(0)} ms`);
    const metrics = await (await fetch(`${h.server.url}/metrics`)).text();
    console.log(metrics.split('\n').filter((l) => /^reeltime_(recorder_(rtp|video|audio|keyframe)|rtcp|rtp_)/.test(l)).join('\n'));
    const stop = await h.api('POST', h.path(t.resourceId, t.sid, 'stop'), { cname, uid: '9000', clientRequest: {} });
    assert.equal(stop.status, 200, JSON.stringify(stop.body));
    for (const [g, group] of groups.entries()) {
      const up = relays[g]!.counters.upstream;
      const loss = group.uplink.loss ?? 0;
      if (loss > 0) assert.ok(up.dropped.random > 0.6 * loss * up.packetsIn, `${group.name} relay: ${JSON.stringify(up)}`);
      else assert.equal(up.dropped.random, 0);
    }
    const keys = bucketKeys(h.bucketDir).filter((k) => k.endsWith('.m3u8'));
    const results = new Map<string, Recorded>();
    // The streams measured two at a time (each runs up to three ffmpeg at once): the recording has ended.
    const measured = await mapBounded(pubs, 2, async (p) => {
      const of = (kind: 'audio' | 'video') => keys.find((k) => k.includes(`__uid_s_${p.uid}__`) && k.includes(`__uid_e_${kind}`));
      const v = of('video');
      const a = of('audio');
      assert.ok(v && a, `playlists of uid ${p.uid} in ${JSON.stringify(keys)}`);
      const [video, audio] = [`${h.bucketDir}/${v}`, `${h.bucketDir}/${a}`];
      const [videoMeasure, audioMeasure, avOffsetsMs, drops] = await Promise.all([
        measureTrack(video, 1 / FPS),
        measureTrack(audio, 0),
        marked ? avOffsets(video, audio, marked) : Promise.resolve([]),
        dropouts ? audioDropouts(audio) : Promise.resolve(undefined),
      ]);
      const r: Recorded = { video: videoMeasure, audio: audioMeasure, avOffsetsMs, ...(drops ? { dropouts: drops } : {}) };
      return { p, r };
    });
    for (const { p, r } of measured) {
      results.set(`${p.group}/${p.codec}`, r);
      const figures = { videoFrames: r.video.frames, videoByPts: keptByPts(r.video, 1 / FPS), audioFrames: r.audio.frames, audioByPts: keptByPts(r.audio, 0) };
      console.log(JSON.stringify({ group: p.group, codec: p.codec, ...figures, errorLines: [...r.video.errorLines, ...r.audio.errorLines] }));
    }
    return { results, metrics, whepRelay, maxStallMs: lag.max / 1e6 };
  } finally {
    await Promise.all(pubs.map((p) => p.pub.stop().catch(() => undefined)));
    await Promise.all(relays.map((r) => r.close()));
    await h.close();
  }
}

export const noDecodeError = (r: Recorded, what: string) => assert.deepEqual([...r.video.errorLines, ...r.audio.errorLines], [], `${what}: no decode error`);
export const metric = (text: string, name: string, kind: string) => Number(new RegExp(`^${name}\\{kind="${kind}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? Number.NaN);

