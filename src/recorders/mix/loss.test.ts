import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import type { SyntheticPublisher } from '../../channel/index.ts';
import { portRangeMappings, startImpairmentRelay, type ImpairmentRelay } from '../../impairment/index.ts';
import { freeShiftedRanges } from '../../impairment/testing/index.ts';
import { FFMPEG_BIN, FFPROBE_BIN } from '../../media/index.ts';
import { runChild } from '../../process/index.ts';
import { waitUntil } from '../../testing/wait.ts';
import { APP, connectedPublisher, rtcToken, startHarness, storageConfig } from '../individual/testing/harness.ts';
import { isColour } from '../individual/testing/media-checks.ts';
import { sampled, sampleRange } from './testing/frames.ts';

const RED = [255, 0, 0];
const BLUE = [0, 0, 255];
const FPS = 15;
const RECORD_SECONDS = 20;

test('mix with one publisher at 10 % uplink loss and one clean: the composite keeps 15 fps, the lossy region stays its colour, no decode error', async () => {
  const ports = 4;
  const { nodeMin, offset } = await freeShiftedRanges(ports);
  const h = await startHarness({ mode: 'mix', channel: { udpPortMin: nodeMin, udpPortMax: nodeMin + ports - 1, icePortOffset: offset, idleTimeoutMs: 60_000 } });
  const relays: ImpairmentRelay[] = [];
  const pubs: SyntheticPublisher[] = [];
  try {
    // The first publisher's session binds the node's lowest port (the lossy relay), the second the next ones.
    relays.push(
      await startImpairmentRelay({
        mappings: portRangeMappings({ address: '127.0.0.1', port: nodeMin + offset }, { address: '127.0.0.1', port: nodeMin }, 1),
        seed: 27,
      }),
    );
    relays.push(
      await startImpairmentRelay({
        mappings: portRangeMappings({ address: '127.0.0.1', port: nodeMin + 1 + offset }, { address: '127.0.0.1', port: nodeMin + 1 }, ports - 1),
      }),
    );
    const cname = 'mix-loss';
    const small = { width: 320, height: 180 };
    pubs.push(await connectedPublisher({ baseUrl: h.server.url, appId: APP, cname, uid: 101, token: rtcToken(cname, 101), color: 'red', toneHz: 440, codec: 'vp8', fps: FPS, mode: 'replay', ...small }));
    assert.equal(relays[1]!.counters.upstream.packetsIn, 0, 'the lossy publisher went through the lossy relay');
    pubs.push(await connectedPublisher({ baseUrl: h.server.url, appId: APP, cname, uid: 102, token: rtcToken(cname, 102), color: 'blue', toneHz: 1000, codec: 'h264', fps: FPS, mode: 'replay', ...small }));
    // Connected over a clean link (ICE and DTLS through 10 % loss only cost time); the loss starts before the recording.
    relays[0]!.setLink('upstream', { loss: 0.1 });
    const rec = await h.startRecording(cname, '9001', {
      token: rtcToken(cname, 9001, 2),
      storageConfig: storageConfig(),
      recordingConfig: {
        channelType: 0,
        streamTypes: 2,
        audioProfile: 1,
        subscribeVideoUids: ['#allstream#'],
        subscribeAudioUids: ['#allstream#'],
        transcodingConfig: { width: 640, height: 360, fps: FPS, bitrate: 500, mixedVideoLayout: 1, backgroundColor: '#00FF00' },
      },
      recordingFileConfig: { avFileType: ['hls'] },
    });
    const audio0 = pubs[0]!.packets.audio;
    await waitUntil(() => pubs[0]!.packets.audio - audio0 >= RECORD_SECONDS * 50, { timeoutMs: RECORD_SECONDS * 1000 + 60_000, intervalMs: 250, what: 'publisher audio packets' });
    const stop = await h.api('POST', h.path(rec.resourceId, rec.sid, 'stop'), { cname, uid: '9001', clientRequest: {} });
    assert.equal(stop.status, 200, JSON.stringify(stop.body));
    const up = relays[0]!.counters.upstream;
    assert.ok(up.dropped.random > 0.06 * up.packetsIn, `lossy relay: ${JSON.stringify(up)}`);

    const m3u8 = join(h.bucketDir, `rec/ind/${rec.sid}_${cname}.m3u8`);
    const dec = await runChild(FFMPEG_BIN, ['-v', 'error', '-allowed_segment_extensions', 'ALL', '-i', m3u8, '-f', 'null', '-'], { timeoutMs: 120_000 });
    assert.equal(dec.stderr.trim(), '', 'no decode error in the composite');
    const probe = await runChild(FFPROBE_BIN, ['-v', 'error', '-select_streams', 'v', '-show_entries', 'frame=pts_time', '-of', 'csv=p=0', m3u8], { timeoutMs: 120_000 });
    const all = probe.stdout.toString('utf8').trim().split('\n').map(Number).filter(Number.isFinite);
    // The composite's first frame stands alone at pts 0 (the output starts before the first decoded picture, with
    // or without loss); the rate is read from 2 s on.
    const pts = all.filter((p) => p >= 2);
    const span = Math.max(...pts) - Math.min(...pts) + 1 / FPS;
    const fps = pts.length / span;
    const gaps = pts.slice(1).map((p, i) => [pts[i]!, p - pts[i]!] as const).filter(([, d]) => d > 1.5 / FPS);
    console.log(`composite: ${pts.length} frames over ${span.toFixed(2)} s from 2 s on = ${fps.toFixed(2)} fps, gaps ${JSON.stringify(gaps)}; lossy relay ${JSON.stringify(up.dropped)} of ${up.packetsIn}`);
    assert.ok(fps >= FPS * 0.99 && fps <= FPS * 1.01, `${fps} fps`);
    assert.deepEqual(gaps, [], 'no frame slot without a frame');
    // Best fit with two users: 101 (lossy, red) on the left, 102 (clean, blue) on the right. A frame decoded against
    // a lost reference would smear other colours into the region; a freeze keeps it red.
    const out = await sampled(m3u8);
    const shown = sampleRange(3, span - 1).filter((n) => isColour(out.px(n, 0.75, 0.5), BLUE));
    assert.ok(shown.length > 0.9 * sampleRange(3, span - 1).length, 'the clean publisher is shown through the recording');
    // Before the lossy user's first complete keyframe its region is the background (a loaded machine makes a late
    // repair give that keyframe up; the replay publisher sends the next one 2 s later): never another colour.
    const GREEN = [0, 255, 0];
    let red = 0;
    for (const n of shown) {
      const px = [[0.1, 0.3], [0.25, 0.5], [0.4, 0.3]].map(([fx, fy]) => out.px(n, fx!, fy!));
      if (px.every((p) => isColour(p, RED))) red++;
      else assert.ok(px.every((p) => isColour(p, GREEN)), `sample ${n}: the lossy publisher's region is ${px.join(' | ')}, neither its colour nor the background`);
    }
    assert.ok(red >= 0.5 * shown.length, `the lossy publisher is shown in ${red} of ${shown.length} samples`);
  } finally {
    await Promise.all(pubs.map((p) => p.stop().catch(() => undefined)));
    await Promise.all(relays.map((r) => r.close()));
    await h.close();
  }
});
