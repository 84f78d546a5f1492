// Chromium on the call page of channel node B joins a channel hosted by node A: its WHIP and WHEP POSTs and its
// event stream follow the 307s to A (docs/deployment.md, "Channels across nodes").
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { buildRtcTokenWithUid } from '@reeltime/token';
import { requireTestRedis } from '../../redis/testing.ts';
import { callPageTilePlays, launchTestChromium } from '../../testing/chromium.ts';
import { startSyntheticPublisher } from '../publisher/index.ts';
import { channelNodes } from './testing.ts';
import { callPageUrl } from '../../testing/call-page.ts';

const APP = '970CA35de60c44645bbae8a215061b33';
const CERT = '5CFd2fd1755d40ecb72977518be15d3b';
const nodes = channelNodes();

before(() => requireTestRedis());
after(() => nodes.close());

test('Chromium on node B joins a channel hosted by node A through the 307s and sees A’s publisher', async () => {
  const [a, b] = await Promise.all([nodes.start(), nodes.start()]);
  const cname = 'browser-spread';
  const pub = await startSyntheticPublisher({
    baseUrl: a.url,
    appId: APP,
    cname,
    uid: 1,
    token: buildRtcTokenWithUid(APP, CERT, cname, 1, 1, 600, 600),
    width: 160,
    height: 120,
    fps: 10,
  });
  const browser = await launchTestChromium();
  try {
    await pub.ready;
    const page = await browser.context.newPage();
    await page.goto(callPageUrl(b.url, cname, 101));
    await page.waitForFunction(() => (window as unknown as { reeltime?: { joined?: boolean } }).reeltime?.joined === true, undefined, { timeout: 60_000 });
    const session = await page.evaluate(() => (window as unknown as { reeltime: { publish: { session: string } } }).reeltime.publish.session);
    assert.ok(String(session).startsWith(`${a.url}/`), `the browser's WHIP session is on A: ${String(session)}`);
    await page.waitForFunction(callPageTilePlays, 1, { timeout: 60_000 });
    const res = await fetch(`${a.url}/rtc/v1/apps/${APP}/channels/${cname}?uid=9&token=${encodeURIComponent(buildRtcTokenWithUid(APP, CERT, cname, 9, 2, 600, 600))}`);
    const body = (await res.json()) as { participants: { uid: number; tracks: unknown[] }[] };
    const browserUid = body.participants.find((p) => p.uid === 101);
    assert.ok(browserUid && browserUid.tracks.length > 0, JSON.stringify(body));
  } finally {
    await browser.close();
    await pub.stop();
  }
});
