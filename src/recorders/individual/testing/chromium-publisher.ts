/**
 * A Chromium publisher for the loss tests and bench/loss: the call page (fake camera and microphone) joined to a
 * channel, and what it has sent so far by its own getStats (Opus packets, 50 a second; video frames).
 */
import type { Page } from 'playwright-core';
import type { TestChromium } from '../../../testing/chromium.ts';

// Page functions (the call page's Content-Security-Policy forbids evaluating strings).
const joinedAndSending = () => {
  const r = (window as unknown as { reeltime?: { joined?: boolean; publish?: { state?: string } } }).reeltime;
  return r?.joined === true && r.publish?.state === 'connected';
};

const sentSoFarInPage = async (): Promise<ChromiumSent> => {
  const pc = (window as unknown as { reeltime: { publish: { pc: RTCPeerConnection } } }).reeltime.publish.pc;
  const sent = { audioPackets: 0, videoFrames: 0 };
  (await pc.getStats()).forEach((r) => {
    if (r.type === 'outbound-rtp' && r.kind === 'audio') sent.audioPackets += r.packetsSent;
    if (r.type === 'outbound-rtp' && r.kind === 'video') sent.videoFrames += r.framesSent ?? 0;
  });
  return sent;
};

export interface ChromiumSent {
  readonly audioPackets: number;
  readonly videoFrames: number;
}

/**
 * Opens the call page as `uid` in `cname` and waits until it publishes (`codec`: the page's video codec first;
 * `simulcast`: its two encodings).
 */
export async function joinCallPage(
  browser: TestChromium,
  url: string,
  cname: string,
  uid: number,
  codec?: 'vp8' | 'h264',
  { simulcast = false }: { simulcast?: boolean } = {},
): Promise<Page> {
  const page = await browser.context.newPage();
  await page.goto(`${url}/rtc/?channel=${cname}&uid=${uid}&autojoin=1${codec ? `&codec=${codec}` : ''}${simulcast ? '&simulcast=1' : ''}`);
  await page.waitForFunction(joinedAndSending, undefined, { timeout: 60_000 });
  return page;
}

/** What the page's publisher has sent so far. */
export function sentSoFar(page: Page): Promise<ChromiumSent> {
  return page.evaluate(sentSoFarInPage);
}
