import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/**
 * Debian's headless Chromium with a fresh profile, fake camera and microphone, and no traffic beyond loopback
 * (no background networking; every host name but 127.0.0.1 fails to resolve).
 */
export interface TestChromium {
  readonly context: BrowserContext;
  /** Closes the browser and removes its profile; safe to call twice. */
  close(): Promise<void>;
}

const FAKE_DEVICES = '--use-fake-device-for-media-stream';

export const CHROMIUM_TEST_ARGS: readonly string[] = Object.freeze([
  // 15 fps, the rate of reeltime's own test publishers, instead of the fake camera's 20: a publishing page cost
  // 17 % less of Chromium's CPU (every process of one call page over 20 s: 5.8 s against 7.0 s). A file that
  // needs another rate passes this switch with its own value (launchTestChromium).
  `${FAKE_DEVICES}=fps=15`,
  '--use-fake-ui-for-media-stream',
  '--allow-loopback-in-peer-connection',
  '--disable-background-networking',
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
]);

/**
 * `extraArgs`: more switches, e.g. `--use-file-for-fake-video-capture=<y4m>` for a camera of one known colour, or
 * `--use-fake-device-for-media-stream=fps=20` for the camera's rate (instead of the default 15).
 */
export async function launchTestChromium(extraArgs: readonly string[] = []): Promise<TestChromium> {
  // playwright refuses a --user-data-dir argument; a persistent context takes the profile folder instead.
  const dir = mkdtempSync(join(tmpdir(), 'reeltime-chromium-'));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [...CHROMIUM_TEST_ARGS.filter((a) => !(a.startsWith(FAKE_DEVICES) && extraArgs.some((e) => e.startsWith(FAKE_DEVICES)))), ...extraArgs],
  });
  return {
    context,
    async close() {
      await context.close().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// Predicates for the call page (/rtc/), run in the page: functions, not strings, since its Content-Security-Policy
// forbids evaluating strings.

/** Whether the call page's tile of `uid` decoded more than 10 frames. */
export const callPageTilePlays = (uid: number): boolean => {
  const v = document.querySelector(`#remote-${uid} video`) as HTMLVideoElement | null;
  return (v && v.videoWidth > 0 ? v.getVideoPlaybackQuality().totalVideoFrames : 0) > 10;
};

/** The centre pixel (r, g, b) of the current frame of the call page's tile of `uid`, read through a canvas. */
export const callPageTileCentre = (uid: number): number[] => {
  const v = document.querySelector(`#remote-${uid} video`) as HTMLVideoElement;
  const c = document.createElement('canvas');
  c.width = v.videoWidth;
  c.height = v.videoHeight;
  const g = c.getContext('2d')!;
  g.drawImage(v, 0, 0);
  return [...g.getImageData(Math.floor(c.width / 2), Math.floor(c.height / 2), 1, 1).data.slice(0, 3)];
};

/**
 * The pixel (r, g, b) three quarters across and down the current frame of the `<video>` at `selector`, read through
 * a canvas, and the frame's width (0: no frame yet).
 */
export const videoPixel = (selector: string): { r: number; g: number; b: number; w: number } => {
  const v = document.querySelector(selector) as HTMLVideoElement;
  const c = document.createElement('canvas');
  c.width = v.videoWidth;
  c.height = v.videoHeight;
  const g = c.getContext('2d')!;
  g.drawImage(v, 0, 0);
  const d = g.getImageData(Math.floor(c.width * 0.75), Math.floor(c.height * 0.75), 1, 1).data;
  return { r: d[0]!, g: d[1]!, b: d[2]!, w: c.width };
};
