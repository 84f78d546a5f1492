/**
 * A Chromium publisher for the loss tests and bench/loss: the call page (fake camera and microphone) joined to a
 * channel, and what it has sent so far by its own getStats (Opus packets, 50 a second; video frames).
 */
import type { Page } from 'playwright-core';
import type { TestChromium } from './chromium.ts';
import { waitUntil } from './wait.ts';

// Page functions (the call page's Content-Security-Policy forbids evaluating strings).
const joinedAndSending = () => {
  const r = (window as unknown as { reeltime?: { joined?: boolean; publish?: { state?: string } } }).reeltime;
  return r?.joined === true && r.publish?.state === 'connected';
};

const sentSoFarInPage = async (): Promise<ChromiumSent> => {
  const pc = (window as unknown as { reeltime: { publish: { pc: RTCPeerConnection } } }).reeltime.publish.pc;
  const sent = { audioPackets: 0, videoFrames: 0, videoEncoded: 0, videoCaptured: 0 };
  (await pc.getStats()).forEach((r) => {
    if (r.type === 'outbound-rtp' && r.kind === 'audio') sent.audioPackets += r.packetsSent;
    if (r.type === 'outbound-rtp' && r.kind === 'video') {
      sent.videoFrames += r.framesSent ?? 0;
      sent.videoEncoded += r.framesEncoded ?? 0;
    }
    if (r.type === 'media-source' && r.kind === 'video') sent.videoCaptured += r.frames ?? 0;
  });
  return sent;
};

export interface ChromiumSent {
  readonly audioPackets: number;
  readonly videoFrames: number;
  /** Frames the video encoder made, and frames its source (the camera) gave it: the difference it skipped. */
  readonly videoEncoded: number;
  readonly videoCaptured: number;
}

/**
 * The call page's address that joins `cname` as `uid` at once, without a self-view (a headless page drawing its own
 * camera cost a fifth of its browser's CPU); `query`: more of the page's parameters (`codec`, `simulcast`, `relay`).
 */
export function callPageUrl(base: string, cname: string, uid: number, query: Readonly<Record<string, string>> = {}): string {
  const params = new URLSearchParams({ channel: cname, uid: String(uid), autojoin: '1', selfview: '0', ...query });
  return `${base}/rtc/?${params}`;
}

/**
 * Opens the call page as `uid` in `cname` and waits until it publishes (`codec`: the page's video codec first;
 * `simulcast`: its two encodings; `prepare`: runs on the new page before it loads, e.g. an init script).
 */
export async function joinCallPage(
  browser: TestChromium,
  url: string,
  cname: string,
  uid: number,
  codec?: 'vp8' | 'h264',
  { simulcast = false, prepare }: { simulcast?: boolean; prepare?: (page: Page) => Promise<void> } = {},
): Promise<Page> {
  const page = await browser.context.newPage();
  await prepare?.(page);
  await page.goto(callPageUrl(url, cname, uid, { ...(codec ? { codec } : {}), ...(simulcast ? { simulcast: '1' } : {}) }));
  await page.waitForFunction(joinedAndSending, undefined, { timeout: 60_000 });
  return page;
}

/** What the page's publisher has sent so far. */
export function sentSoFar(page: Page): Promise<ChromiumSent> {
  return page.evaluate(sentSoFarInPage);
}

// Simulcast (the page's `simulcast=1`): its video encodings by Chromium's own stats, by rid (`h`: the full picture,
// `l`: half its size). Chromium scales an encoding down when short of CPU, so its width is read too.
export interface EncodingStats {
  readonly frames: number;
  readonly width: number;
  readonly limitation: string;
}

const encodingStatsInPage = async (): Promise<Record<string, EncodingStats>> => {
  const pc = (window as unknown as { reeltime: { publish: { pc: RTCPeerConnection } } }).reeltime.publish.pc;
  const byRid: Record<string, EncodingStats> = {};
  (await pc.getStats()).forEach((r) => {
    if (r.type === 'outbound-rtp' && r.kind === 'video' && r.rid) {
      byRid[r.rid] = { frames: r.framesSent ?? 0, width: r.frameWidth ?? 0, limitation: String(r.qualityLimitationReason) };
    }
  });
  return byRid;
};

/** Each encoding's frames sent so far, width and quality limitation. */
export function encodingStats(page: Page): Promise<Record<string, EncodingStats>> {
  return page.evaluate(encodingStatsInPage);
}

/** Frames sent by encoding `rid` between two readings of `encodingStats`. */
export const sentSince =
  (before: Record<string, EncodingStats>, after: Record<string, EncodingStats>) =>
  (rid: 'h' | 'l'): number =>
    (after[rid]?.frames ?? 0) - (before[rid]?.frames ?? 0);

/**
 * Whether Chromium sent its full picture between two readings: the `h` encoding at 640 wide, with at least `share`
 * of the frames of `l` (a Chromium short of CPU slows it down or scales it, which says nothing of the node).
 */
export function fullPictureSent(before: Record<string, EncodingStats>, after: Record<string, EncodingStats>, share: number): boolean {
  const sent = sentSince(before, after);
  return after.h?.width === 640 && sent('h') >= share * sent('l');
}

/** What the page sent between two readings, for a report. */
export function sentReport(before: Record<string, EncodingStats>, after: Record<string, EncodingStats>): string {
  const sent = sentSince(before, after);
  return `Chromium sent ${sent('h')} frames of its full picture (now ${after.h?.width ?? 0} wide, limited by ${after.h?.limitation ?? '?'}), ${sent('l')} of the half-size one`;
}

/**
 * Waits (up to 60 s) until the page sends both its encodings at their sizes (640 and 320 wide): Chromium starts the
 * larger one once its bandwidth estimate (the node's congestion feedback) and its CPU allow. Resolves to undefined
 * then, or else to why it holds the larger one back (each encoding's `qualityLimitationReason`: `cpu` on a loaded
 * machine says nothing of the node).
 */
export async function bothEncodings(page: Page): Promise<readonly string[] | undefined> {
  const both = async () => {
    const s = await encodingStats(page);
    return s.h?.width === 640 && s.l?.width === 320 && s.h.frames > 0 && s.l.frames > 0;
  };
  const sent = await waitUntil(both, { timeoutMs: 60_000, intervalMs: 500, what: 'both encodings' }).catch(() => false);
  return sent ? undefined : Object.values(await encodingStats(page)).map((e) => e.limitation);
}

const setEncodingInPage = async ({ rid, change }: { rid: string; change: EncodingChange }): Promise<void> => {
  const pc = (window as unknown as { reeltime: { publish: { pc: RTCPeerConnection } } }).reeltime.publish.pc;
  const sender = pc.getSenders().find((s) => s.track?.kind === 'video');
  if (!sender) throw new Error('no video sender');
  const params = sender.getParameters();
  for (const e of params.encodings) if (e.rid === rid) Object.assign(e, change);
  await sender.setParameters(params);
};

/** What a test may change of one encoding (RTCRtpEncodingParameters' fields of the same names). */
export interface EncodingChange {
  readonly active?: boolean;
  readonly maxBitrate?: number;
}

/**
 * Changes one of the page's encodings (`h`: the full picture, `l`: half its size): pauses or resumes it, as a sender
 * short of bandwidth does, or bounds its bit rate.
 */
export function setEncoding(page: Page, rid: 'h' | 'l', change: EncodingChange): Promise<void> {
  return page.evaluate(setEncodingInPage, { rid, change });
}

/** A camera and microphone whose marks a test reads back from a recording (`markedDevices`). */
export interface MarkedDevices {
  /** The microphone: a WebAudio tone in one half of every period from `epochMs`, at wall-clock edges (none: silent). */
  readonly tone: { readonly epochMs: number; readonly periodMs: number; readonly hz: number; readonly half: 'first' | 'second' | 'none' };
  /**
   * The camera: a canvas that numbers its frames from `epochMs` in a band along the bottom (FRAME_CODE of
   * channel/publisher: `bits` blocks in the bottom `bandFraction`); absent: the browser's own (fake) camera.
   */
  readonly canvas?: { readonly epochMs: number; readonly fps: number; readonly width: number; readonly height: number; readonly bits: number; readonly bandFraction: number };
}

/**
 * In the page, before the call page loads (`page.addInitScript(markedDevices, devices)`): getUserMedia answers a
 * microphone that sounds a tone in one half of every period, and a canvas camera whose frames carry their numbers
 * (drawn on a polled frame clock, each within a few ms of its due instant) below a still picture with a moving box,
 * or the browser's own camera. With the tone in the first half, frame k × period × fps and tone onset k are one
 * instant as Chromium's capture saw it (`avOffsets` in recorders/individual/testing). The canvas track's
 * `contentHint` is `detail`: Chromium keeps its resolution under loss (the band is read at fixed positions). No
 * helper functions in here: tsx would wrap them in a name-keeping call the page does not have.
 */
export function markedDevices(m: MarkedDevices): void {
  const media = navigator.mediaDevices;
  const original = media.getUserMedia.bind(media);
  media.getUserMedia = async (constraints?: MediaStreamConstraints) => {
    const c = m.canvas;
    const stream = c || !constraints?.video ? new MediaStream() : await original({ video: constraints.video, audio: false });
    if (c && constraints?.video) {
      const canvas = document.createElement('canvas');
      canvas.width = c.width;
      canvas.height = c.height;
      const g = canvas.getContext('2d') as CanvasRenderingContext2D;
      const band = Math.max(2, Math.round(c.height * c.bandFraction));
      // Frames on demand (requestFrame): a free-running timer put each frame up to half a frame off its instant.
      const track = canvas.captureStream(0).getVideoTracks()[0] as CanvasCaptureMediaStreamTrack;
      track.contentHint = 'detail';
      const frameMs = 1000 / c.fps;
      let due = 0;
      // A timer at each frame's due instant (a 4 ms poll did as well and woke the page 250 times a second: a fifth
      // of a marked page's CPU): each frame is drawn and taken within a few ms of its instant.
      // Not a named function: tsx would wrap it in a name-keeping call the page does not have (above).
      const frames: { next?: () => void } = {};
      frames.next = () => {
        const at = performance.timeOrigin + performance.now() - c.epochMs;
        const n = Math.floor(at / frameMs);
        if (n >= due) {
          due = n + 1;
          // A still picture with a box that moves, as a camera's mostly still scene, the code below it.
          g.fillStyle = '#2a6f4e';
          g.fillRect(0, 0, c.width, c.height - band);
          g.fillStyle = '#ddd';
          g.fillRect((n * 4) % c.width, (c.height - band) / 4, c.width / 5, (c.height - band) / 2);
          g.fillStyle = 'black';
          g.fillRect(0, c.height - band, c.width, band);
          g.fillStyle = 'white';
          for (let k = 0; k < c.bits; k++) {
            if (((n >> k) & 1) === 0) continue;
            const x = Math.round((k * c.width) / c.bits);
            g.fillRect(x, c.height - band, Math.round(((k + 1) * c.width) / c.bits) - x, band);
          }
          track.requestFrame();
        }
        setTimeout(frames.next!, Math.max(0, due * frameMs - (performance.timeOrigin + performance.now() - c.epochMs)));
      };
      frames.next();
      stream.addTrack(track);
    }
    if (constraints?.audio) {
      const ctx = new AudioContext({ sampleRate: 48000 });
      await ctx.resume();
      const osc = ctx.createOscillator();
      osc.frequency.value = m.tone.hz;
      const gain = ctx.createGain();
      gain.gain.value = 0;
      const out = ctx.createMediaStreamDestination();
      osc.connect(gain).connect(out);
      osc.start();
      // Wall clock → audio clock, from one reading of both.
      await new Promise((r) => setTimeout(r, 200));
      const at = ctx.getOutputTimestamp();
      const wallNow = performance.timeOrigin + (at.performanceTime ?? performance.now());
      const audioNow = at.contextTime ?? ctx.currentTime;
      if (m.tone.half !== 'none') {
        const { epochMs, periodMs } = m.tone;
        const offset = m.tone.half === 'first' ? 0 : periodMs / 2;
        for (let k = 0; k < 300; k++) {
          const on = epochMs + k * periodMs + offset;
          if (on + periodMs / 2 < wallNow) continue;
          gain.gain.setValueAtTime(0.5, Math.max(0, audioNow + (on - wallNow) / 1000));
          gain.gain.setValueAtTime(0, Math.max(0, audioNow + (on + periodMs / 2 - wallNow) / 1000));
        }
      }
      for (const t of out.stream.getAudioTracks()) stream.addTrack(t);
    }
    return stream;
  };
}
