import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildRtcTokenWithUid } from '@reeltime/token';
import { callPageTilePlays, launchTestChromium } from '../testing/chromium.ts';
import { startTestServer } from '../testing/index.ts';
import { whepSubscribe } from './client/index.ts';
import { callPageUrl } from '../testing/call-page.ts';

/** Whether the call page's own tile is hidden, and the width of the picture it shows (0: none). */
const selfViewShown = () => ({
  hidden: (document.querySelector('#local') as HTMLElement).hidden,
  width: (document.querySelector('#localVideo') as HTMLVideoElement).videoWidth,
});

const APP = '970CA35de60c44645bbae8a215061b33';
const CERT = '5CFd2fd1755d40ecb72977518be15d3b';

// Page predicates are functions, not strings: the call page's Content-Security-Policy forbids evaluating strings.
const joined = () => (window as unknown as { reeltime?: { joined?: boolean } }).reeltime?.joined === true;
/** The mime types of the video the page's publisher is sending. */
const sentVideoCodecs = async (): Promise<string[]> => {
  const pc = (window as unknown as { reeltime: { publish: { pc: RTCPeerConnection } } }).reeltime.publish.pc;
  const mimeTypes = new Map<string, string>();
  const codecIds: string[] = [];
  (await pc.getStats()).forEach((r) => {
    if (r.type === 'codec') mimeTypes.set(r.id, r.mimeType);
    if (r.type === 'outbound-rtp' && r.kind === 'video' && r.codecId) codecIds.push(r.codecId);
  });
  return codecIds.map((id) => mimeTypes.get(id) ?? id);
};

test('Chromium publishes through /rtc/ (WHIP), a werift subscriber receives its RTP, two browsers see each other; ?codec=h264 sends H.264', async () => {
  // Dead-peer timeouts are not under test here: two Chromiums on a busy machine may take seconds to connect.
  const s = await startTestServer({ values: { channel: { idleTimeoutMs: 60000 } } });
  // Independent steps run side by side: both launches, then the werift subscriber's check beside B's join.
  const [a, b] = await Promise.all([launchTestChromium(), launchTestChromium()]);
  try {
    const pageA = await a.context.newPage();
    await pageA.goto(callPageUrl(s.url, 'call', 101));
    await pageA.waitForFunction(joined, undefined, { timeout: 30000 });

    const token = buildRtcTokenWithUid(APP, CERT, 'call', 900, 2, 600, 600);
    const viaWerift = (async () => {
      const sub = await whepSubscribe({ endpoint: `${s.url}/rtc/v1/apps/${APP}/channels/call/whep?uid=900&publisher=101`, token });
      try {
        await sub.waitFor(() => sub.counts.video > 50 && sub.counts.audio > 50, 30000, 'RTP from Chromium');
        assert.ok(['vp8', 'h264'].includes(sub.codecs.get('video')!));
      } finally {
        await sub.close();
      }
    })();
    const joinB = (async () => {
      const pageB = await b.context.newPage();
      // B shows its own camera (selfview=1, the page's default); A, as every test page, does not.
      await pageB.goto(callPageUrl(s.url, 'call', 102, { codec: 'h264', selfview: '1' }));
      await pageB.waitForFunction(joined, undefined, { timeout: 30000 });
      return pageB;
    })();
    const [pageB] = await Promise.all([joinB, viaWerift]);
    await pageB.waitForFunction(callPageTilePlays, 101, { timeout: 30000 });
    await pageA.waitForFunction(callPageTilePlays, 102, { timeout: 30000 });
    // B asked for H.264 (the call page's ?codec=): it sends it, and A, through the node, plays it.
    assert.deepEqual(await pageB.evaluate(sentVideoCodecs), ['video/H264']);
    assert.deepEqual(await pageA.evaluate(selfViewShown), { hidden: true, width: 0 }, 'selfview=0: no picture of its own camera');
    const shownB = await pageB.evaluate(selfViewShown);
    assert.ok(!shownB.hidden && shownB.width > 0, `the default: its own camera shown (${JSON.stringify(shownB)})`);
    const status = await pageA.textContent('#status');
    assert.match(status ?? '', /in channel "call" as uid 101/);
    // A codec the node does not forward is refused by the page, naming the option, before the camera opens.
    const pageC = await a.context.newPage();
    await pageC.goto(callPageUrl(s.url, 'call', 103, { codec: 'vp9' }));
    await pageC.waitForFunction(() => document.querySelector('#status')?.className === 'error', undefined, { timeout: 30000 });
    assert.equal(await pageC.textContent('#status'), '?codec=vp9: must be vp8 or h264');
  } finally {
    await a.close();
    await b.close();
    await s.close();
  }
});
