/**
 * Web capture A/V offset: a page flashes white and beeps at the same instant once a second (both driven by the
 * page's audio clock); the captured segments are decoded and each beep's onset is compared with the flash's
 * first frame. Prints the offsets (audio minus video, ms): positive means the sound comes late.
 *
 *   node --import tsx bench/web-av-sync.ts            (BENCH_SECONDS=12, 30 fps)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCapture, type CapturedSegment } from '../src/media/capture/index.ts';
import { runChild } from '../src/process/index.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 12);
const FPS = 30;

const PAGE = `<!doctype html><html><body style="margin:0;background:#000"><script>
const ctx = new AudioContext();
const g = ctx.createGain(); g.gain.value = 0; g.connect(ctx.destination);
const o = ctx.createOscillator(); o.frequency.value = 1000; o.connect(g); o.start();
let next = Math.ceil(ctx.currentTime) + 1;
function schedule() {
  while (next < ctx.currentTime + 2) { g.gain.setValueAtTime(0.8, next); g.gain.setValueAtTime(0, next + 0.1); next += 1; }
}
function frame() {
  schedule();
  // Flash and beep at the same audio-clock instant, as a naive page would (no outputLatency correction: the
  // capture taps the sink, whose timestamps already account for the sound server's latency).
  const now = ctx.currentTime;
  document.body.style.background = (now % 1) < 0.2 && now > 1 ? '#fff' : '#000';
  requestAnimationFrame(frame);
}
requestAnimationFrame(frame);
if (navigator.notifyReady) navigator.notifyReady();
</script></body></html>`;

// Times below are the files' own timestamps (ms), the same clock for picture and sound within one encoder run.

/** Each black→white transition in the segment (centre pixel luma crosses 128). */
async function flashes(seg: CapturedSegment): Promise<number[]> {
  const r = await runChild('ffmpeg', ['-v', 'error', '-copyts', '-i', seg.path, '-map', '0:v', '-vf', 'crop=8:8:(iw-8)/2:(ih-8)/2,signalstats,metadata=print:key=lavfi.signalstats.YAVG:file=-', '-f', 'null', '-']);
  const out: number[] = [];
  let prev = 0;
  let t = 0;
  for (const line of r.stdout.toString().split('\n')) {
    const m = /pts_time:([\d.]+)/.exec(line);
    if (m) t = Number(m[1]);
    const y = /YAVG=([\d.]+)/.exec(line);
    if (y) {
      const v = Number(y[1]);
      if (prev < 128 && v >= 128) out.push(t * 1000);
      prev = v;
    }
  }
  return out;
}

/** Each beep onset (|sample| rises above 0.1 after ≥ 0.5 s of quiet). */
async function beeps(seg: CapturedSegment): Promise<number[]> {
  const probe = await runChild('ffprobe', ['-v', 'error', '-show_entries', 'stream=start_time,codec_type', '-of', 'json', seg.path]);
  const j = JSON.parse(probe.stdout.toString()) as { streams?: { codec_type: string; start_time: string }[] };
  const audio = j.streams?.find((s) => s.codec_type === 'audio');
  if (!audio) return [];
  const audioStart = Number(audio.start_time);
  const r = await runChild('ffmpeg', ['-v', 'error', '-i', seg.path, '-map', '0:a', '-ac', '1', '-ar', '48000', '-f', 'f32le', 'pipe:1']);
  const b = r.stdout;
  const pcm = new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.length - (b.length % 4)));
  const out: number[] = [];
  let quiet = 0;
  for (let i = 0; i < pcm.length; i++) {
    if (Math.abs(pcm[i]!) > 0.1) {
      if (quiet >= 24_000) out.push((audioStart + i / 48_000) * 1000);
      quiet = 0;
    } else quiet++;
  }
  return out;
}

const dir = mkdtempSync(join(tmpdir(), 'bench-av-sync-'));
const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE));
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const segments: CapturedSegment[] = [];
const cap = await startCapture({ workDir: dir, width: 640, height: 360, videoFps: FPS, sliceSeconds: 4 }, (e) => {
  if (e.kind === 'segment') segments.push(e.segment);
});
try {
  await cap.load(`http://127.0.0.1:${(server.address() as { port: number }).port}/`);
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
} finally {
  await cap.stop();
  server.close();
}
const v: number[] = [];
const a: number[] = [];
for (const s of segments) {
  v.push(...(await flashes(s)));
  a.push(...(await beeps(s)));
}
const offsets = a.map((t) => t - v.reduce((best, x) => (Math.abs(x - t) < Math.abs(best - t) ? x : best), Infinity)).filter((d) => Math.abs(d) < 250); // a beep cut by a segment boundary pairs with nothing sensible
offsets.sort((x, y) => x - y);
const median = offsets[Math.floor(offsets.length / 2)];
console.log(`A/V offset (audio − video) over ${offsets.length} flash+beep pairs at ${FPS} fps: median ${median?.toFixed(0)} ms, range ${offsets[0]?.toFixed(0)}..${offsets.at(-1)?.toFixed(0)} ms (frame period ${(1000 / FPS).toFixed(0)} ms)`);
rmSync(dir, { recursive: true, force: true });
