/**
 * Web capture A/V offset: a page flashes a white square and beeps (4 kHz) at the same instant once a second (both
 * driven by the page's audio clock, `flashBeepHz` of the test pages); the captured segments are decoded and each
 * beep's onset is compared with the flash's first frame, on the files' own timestamps. Prints the offsets (audio
 * minus video, ms): positive means the sound comes late. The same checks run in src/recorders/web/page.test.ts.
 *
 *   node --import tsx bench/web-av-sync.ts            (BENCH_SECONDS=12, 30 fps)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCapture, type CapturedSegment } from '../src/media/capture/index.ts';
import { avOffsetsMs, beepOnsets, flashOnsets, median, sampleFrames } from '../src/media/capture/testing/media-checks.ts';
import { FLASH_SQUARE, startPageServer } from '../src/media/capture/testing/page-server.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 12);
const FPS = 30;

const pages = await startPageServer({ sync: { colour: '#000', flashBeepHz: 4000 } });
const dir = mkdtempSync(join(tmpdir(), 'bench-av-sync-'));
const segments: CapturedSegment[] = [];
const cap = await startCapture({ workDir: dir, width: 640, height: 360, videoFps: FPS, sliceSeconds: 4 }, (e) => {
  if (e.kind === 'segment') segments.push(e.segment);
});
try {
  await cap.load(`${pages.origin}/sync`);
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
} finally {
  await cap.stop();
  await pages.close();
}
const offsets: number[] = [];
for (const s of segments) {
  const frames = await sampleFrames(s.path, [[FLASH_SQUARE / 2, FLASH_SQUARE / 2]]);
  offsets.push(...avOffsetsMs(await beepOnsets(s.path), flashOnsets(frames)));
}
console.log(
  `A/V offset (audio − video) over ${offsets.length} flash+beep pairs at ${FPS} fps: median ${median(offsets).toFixed(0)} ms, ` +
    `range ${Math.min(...offsets).toFixed(0)}..${Math.max(...offsets).toFixed(0)} ms (frame period ${(1000 / FPS).toFixed(0)} ms)`,
);
rmSync(dir, { recursive: true, force: true });
