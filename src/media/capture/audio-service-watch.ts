/**
 * Watches Chromium's audio service (the utility process that plays every page sound into the sound server).
 * Measured here (docs/recording-web.md, "Audio-loss reloads"): Chromium starts it with the page's first sound and
 * keeps it while the browser runs (still there 2 minutes after the page closed its AudioContext); when it dies,
 * Chromium does not start another, and the capture carries digital silence until the page is reloaded. So: seen
 * once, then gone while the browser runs, is the audio path lost.
 */
import { processTable } from '../../process/index.ts';

const AUDIO_SERVICE_ARG = 'audio.mojom.AudioService';
/** How often the process table is read (one /proc walk). */
export const AUDIO_WATCH_INTERVAL_MS = 2000;

/** The audio service's pid among the descendants of `rootPid`, if it runs. */
export function audioServicePid(rootPid: number): number | undefined {
  const table = processTable();
  const tree = new Set([rootPid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of table) {
      if (tree.has(p.ppid) && !tree.has(p.pid)) {
        tree.add(p.pid);
        grew = true;
      }
    }
  }
  return table.find((p) => tree.has(p.pid) && p.state !== 'Z' && p.argv.some((a) => a.includes(AUDIO_SERVICE_ARG)))?.pid;
}

/** Calls `onLost` each time a running audio service is gone (a later one, after a reload, is watched again). */
export function watchAudioService(browserPid: () => number | undefined, onLost: () => void): () => void {
  let seen: number | undefined;
  const timer = setInterval(() => {
    const root = browserPid();
    if (root === undefined) return;
    const pid = audioServicePid(root);
    if (pid === undefined && seen !== undefined) {
      seen = undefined;
      onLost();
    } else if (pid !== undefined) seen = pid;
  }, AUDIO_WATCH_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
