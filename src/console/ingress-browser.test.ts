// The console's Ingress page in headless Chromium against a whole reeltime with an RTMP listener: create an RTMP
// ingress from the form, copy its Server and Stream Key (the clipboard, as a user would), push to them with ffmpeg
// (as OBS would), see it publishing with a moving bitrate and marked as an ingress on its channel card, have a bad
// RTSP URL refused with the API's reason, delete it. With REELTIME_SCREENSHOTS=1 the page goes to
// docs/images/console-ingress.png.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { test } from 'node:test';
import { obsLike } from '../ingress/testing.ts';
import { FFMPEG_BIN } from '../media/index.ts';
import { spawnChild } from '../process/index.ts';
import { startHarness } from '../recorders/individual/testing/harness.ts';
import { launchTestChromium } from '../testing/chromium.ts';
import { TEST_CUSTOMER_SECRET } from '../testing/index.ts';

const IMAGES = new URL('../../docs/images/', import.meta.url).pathname;

test('console Ingress page: create an RTMP ingress, copy its OBS settings, push to them, see it publishing on the page and on its channel card, a bad URL refused, delete', async (t) => {
  const h = await startHarness({ env: { REELTIME_INGRESS_RTMP_PORT: '0' } });
  t.after(() => h.close());
  const browser = await launchTestChromium();
  t.after(() => browser.close());
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h.server.url });
  const page = await browser.context.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  const failures: string[] = [];
  page.on('pageerror', (e) => failures.push(e.message));
  page.on('console', (m) => void (/Content Security Policy/i.test(m.text()) && failures.push(m.text())));

  await page.goto(`${h.server.url}/`);
  await page.fill('input[name=customerId]', 'test-customer');
  await page.fill('input[name=customerSecret]', TEST_CUSTOMER_SECRET);
  await page.click('#signin button.primary');
  await page.click('nav.tabs a[href="#/ingress"]');
  await page.waitForSelector('#no-ingress');

  await page.fill('#new-ingress input[name=cname]', 'console-ingest');
  await page.fill('#new-ingress input[name=uid]', '7070');
  await page.selectOption('#new-ingress select[name=kind]', 'rtmp');
  await page.click('#new-ingress button.primary');
  const card = page.locator('.ingress[data-state=waiting]');
  await card.waitFor();
  // What OBS needs, copied the way a user copies it.
  const copied = async (name: string) => {
    await card.locator(`[data-name=${name}] button`).click();
    return page.evaluate(() => navigator.clipboard.readText());
  };
  const server = await copied('server');
  const streamKey = await copied('streamKey');
  assert.match(server, /^rtmp:\/\/127\.0\.0\.1:\d+\/live$/);
  assert.match(streamKey, /^in_[0-9a-f]{18}\./);
  assert.equal(await card.locator('[data-name=server] code').textContent(), server);

  const push = spawnChild(FFMPEG_BIN, obsLike(`${server}/${streamKey}`, { color: 'green', toneHz: 550 }), { stdio: ['ignore', 'ignore', 'ignore'] });
  t.after(() => push.kill('SIGKILL'));
  const publishing = page.locator('.ingress[data-state=publishing]');
  await publishing.waitFor({ timeout: 60_000 });
  // The bitrate line gets samples from the SFU's counters.
  await page.waitForFunction(() => (document.querySelector('.ingress .spark')?.getAttribute('data-values') ?? '').split(',').filter(Boolean).length >= 2, undefined, {
    timeout: 30_000,
  });
  if (process.env.REELTIME_SCREENSHOTS) {
    mkdirSync(IMAGES, { recursive: true });
    await page.screenshot({ path: `${IMAGES}console-ingress.png`, type: 'png' });
  }

  // The channel card shows the participant as an RTMP ingress.
  await page.click('nav.tabs a[href="#/channels"]');
  const marked = page.locator('.channel[data-cname="console-ingest"] .participant[data-uid="7070"] [data-role=ingress]');
  await marked.waitFor({ timeout: 30_000 });
  assert.equal(await marked.textContent(), 'rtmp ingress');

  // A bad URL: the API's reason, naming the field, on the form.
  await page.click('nav.tabs a[href="#/ingress"]');
  await page.fill('#new-ingress input[name=cname]', 'console-ingest');
  await page.fill('#new-ingress input[name=uid]', '7071');
  await page.selectOption('#new-ingress select[name=kind]', 'rtsp');
  await page.fill('#new-ingress input[name=url]', 'http://camera.invalid/stream');
  await page.click('#new-ingress button.primary');
  await page.waitForSelector('#new-ingress pre.error');
  assert.match((await page.textContent('#new-ingress pre.error')) ?? '', /HTTP 400[\s\S]*url: must use rtsp or rtsps for kind \\"rtsp\\"/);

  // Deleted: the card goes, and the source is disconnected (ffmpeg ends).
  const exited = new Promise<void>((resolve) => push.once('exit', () => resolve()));
  await page.locator('.ingress button.danger').click();
  await page.waitForSelector('#no-ingress');
  await exited;
  assert.deepEqual(failures, []);
});
