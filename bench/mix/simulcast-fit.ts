/**
 * Mix recording of simulcast publishers, with and without taking each one's smallest layer that covers its region
 * (`recording.mixFitLayers`; docs/recording-mix.md, "Simulcast"): the recorder's CPU in the same run, each setting
 * on its own in-process reeltime with its own Chromium.
 *
 * Two Chromium call pages publish with the page's simulcast switch (640×360 and 320×180, VP8); a 640×360@15 mix
 * draws each in a quarter of the canvas (320×180), so with fitting the mix decodes their 320×180 layers, without it
 * their 640×360 ones (scaled down by the decoders). Counted over the window: the mix's video decoders, its encoder,
 * and this Node process (SFU, the recorder's taps, compositing, mixing; the same both ways but for the taps), from
 * /proc. Chromium is not counted.
 *
 *   npm run bench:mix-simulcast [-- --seconds S]   (default 30 s windows)
 */
import type { Page } from 'playwright-core';
import { rtcToken, startHarness, storageConfig } from '../../src/recorders/individual/testing/harness.ts';
import { scrape } from '../../src/metrics/testing.ts';
import { bothEncodings, joinCallPage } from '../../src/testing/call-page.ts';
import { launchTestChromium } from '../../src/testing/chromium.ts';
import { waitUntil } from '../../src/testing/wait.ts';
import { measureCpu, type CpuFigures } from './cpu-parts.ts';
import { loadAverage } from './proc-cpu.ts';

const argv = process.argv.slice(2);
const seconds = Number(argv[argv.indexOf('--seconds') + 1]) || 30;
const PUBLISHERS = [101, 102];
const QUARTER = { y_axis: 0, width: 0.5, height: 0.5 };

async function run(fitLayers: boolean): Promise<{ cpu: CpuFigures; lowMoves: number }> {
  const h = await startHarness({ mode: 'mix', recording: { mixFitLayers: fitLayers } });
  const browser = await launchTestChromium();
  try {
    const cname = `bench-simulcast-${fitLayers ? 'fit' : 'high'}`;
    const pages: Page[] = [];
    for (const uid of PUBLISHERS) pages.push(await joinCallPage(browser, h.server.url, cname, uid, 'vp8', { simulcast: true }));
    for (const page of pages) {
      const limits = await bothEncodings(page);
      if (limits) throw new Error(`a Chromium publisher sends one encoding only (${limits.join(', ')}): the machine is too busy for this bench`);
    }
    const rec = await h.startRecording(cname, '9000', {
      token: rtcToken(cname, 9000, 2),
      storageConfig: storageConfig(),
      recordingConfig: {
        channelType: 0,
        videoStreamType: 0,
        transcodingConfig: {
          width: 640,
          height: 360,
          fps: 15,
          bitrate: 800,
          mixedVideoLayout: 3,
          layoutConfig: PUBLISHERS.map((uid, i) => ({ uid: String(uid), x_axis: i * 0.5, ...QUARTER })),
        },
      },
      recordingFileConfig: { avFileType: ['hls'] },
    });
    const lowMoves = async () => (await scrape(h.server.url)).sum('reeltime_tap_layer_moves_total', { layer: 'low' });
    if (fitLayers) await waitUntil(async () => (await lowMoves()) >= PUBLISHERS.length, { timeoutMs: 30_000, what: 'both taps on the low layer' });
    const cpu = await measureCpu(seconds);
    const stop = await h.api('POST', h.path(rec.resourceId, rec.sid, 'stop'), { cname, uid: '9000', clientRequest: {} });
    if (stop.status !== 200) throw new Error(`stop: ${stop.status} ${JSON.stringify(stop.body)}`);
    return { cpu, lowMoves: await lowMoves() };
  } finally {
    await browser.close();
    await h.close();
  }
}

const cores = (c: CpuFigures) => c.parts.videoDecoders + c.parts.audioDecoders + c.parts.encoder + c.node;
const fmt = (n: number) => n.toFixed(3);

console.log(`bench:mix-simulcast: ${PUBLISHERS.length} Chromium simulcast publishers (640×360 + 320×180) in 320×180 regions of a 640×360@15 mix, ${seconds} s windows; load ${loadAverage()}`);
const high = await run(false);
const fit = await run(true);
for (const [name, r] of [
  ['high layer (mixFitLayers false)', high],
  ['smallest covering layer (default)', fit],
] as const) {
  const p = r.cpu.parts;
  console.log(
    `${name.padEnd(36)} video decoders ${fmt(p.videoDecoders)}  audio decoders ${fmt(p.audioDecoders)}  encoder ${fmt(p.encoder)}  node ${fmt(r.cpu.node)}  total ${fmt(cores(r.cpu))} cores  (taps moved to low: ${r.lowMoves})`,
  );
}
console.log(`ratio fitted / high: video decoders ${fmt(fit.cpu.parts.videoDecoders / high.cpu.parts.videoDecoders)}, recorder total ${fmt(cores(fit.cpu) / cores(high.cpu))}`);
