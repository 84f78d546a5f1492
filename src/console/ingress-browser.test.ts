// The console's Ingress and Rules pages in headless Chromium against a whole reeltime with an RTMP listener: create
// a recording rule and an RTMP ingress from the forms, copy the ingress's Server and Stream Key (the clipboard, as a
// user would), push to them with ffmpeg (as OBS would), see it publishing with a moving bitrate, recorded by the rule
// and marked as an ingress on its channel card, have a bad RTSP URL refused with the API's reason, relay it over WHEP
// (with a bearer token) into another channel from the form, delete them all.
// With REELTIME_SCREENSHOTS=1 the pages go to docs/images/console-ingress.png and console-rules.png.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { test } from 'node:test';
import { obsLike } from '../ingress/testing.ts';
import { FFMPEG_BIN } from '../media/index.ts';
import { spawnChild } from '../process/index.ts';
import { APP, BUCKET, rtcToken, startHarness } from '../recorders/individual/testing/harness.ts';
import { launchTestChromium } from '../testing/chromium.ts';
import { TEST_CUSTOMER_SECRET } from '../testing/index.ts';

const IMAGES = new URL('../../docs/images/', import.meta.url).pathname;

test('console Ingress and Rules pages: a rule for console-*, an RTMP ingress created and its OBS settings copied, pushed to, publishing on the page and its channel card, recorded by the rule (its session one click away), a bad URL refused, a WHEP stream with its token relayed, all deleted', async (t) => {
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
  // A rule first: every channel named console-* is recorded when its first publisher comes, with no client call.
  await page.click('nav.tabs a[href="#/rules"]');
  await page.waitForSelector('#no-rules');
  await page.fill('#new-rule input[name=cname]', 'console-*');
  await page.selectOption('#new-rule select[name=mode]', 'individual');
  await page.fill('#new-rule input[name=bucket]', BUCKET);
  await page.fill('#new-rule input[name=accessKey]', 'local-access-key');
  await page.fill('#new-rule input[name=secretKey]', 'local-secret-key');
  await page.click('#new-rule button.primary');
  await page.waitForSelector('.rule[data-cname="console-*"]');

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

  // The rule recorded the channel once its source published: its recording on the Rules page leads to the session.
  await page.click('nav.tabs a[href="#/rules"]');
  const recording = page.locator('.rule [data-recording="console-ingest"]');
  await recording.waitFor({ timeout: 60_000 });
  // The row has its sid once the rule's start has answered.
  await recording.locator('code').waitFor({ timeout: 60_000 });
  if (process.env.REELTIME_SCREENSHOTS) await page.screenshot({ path: `${IMAGES}console-rules.png`, type: 'png' });
  await recording.click();
  await page.waitForFunction(() => location.hash.startsWith('#/recordings/'));
  const sid = (await page.evaluate(() => location.hash)).split('/')[2]!;
  const session = await h.api('GET', `/v1/apps/${APP}/cloud_recording/sessions/${sid}`);
  assert.equal(session.status, 200, JSON.stringify(session.body));
  assert.deepEqual([session.body.cname, session.body.mode], ['console-ingest', 'individual']);

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

  // A WHEP stream with its bearer token: here this server's own channel, whose RTMP source it relays into another
  // channel. It publishes, and the token is nowhere on the page.
  const whepToken = rtcToken('console-ingest', 7073, 2);
  await page.fill('#new-ingress input[name=cname]', 'relay-whep');
  await page.fill('#new-ingress input[name=uid]', '7072');
  await page.selectOption('#new-ingress select[name=kind]', 'whep');
  await page.fill('#new-ingress input[name=url]', `${h.server.url}/rtc/v1/apps/${APP}/channels/console-ingest/whep?uid=7073&publisher=7070`);
  await page.fill('#new-ingress input[name=token]', whepToken);
  await page.click('#new-ingress button.primary');
  const relayed = page.locator('.ingress[data-state=publishing]', { hasText: 'relay-whep' });
  await relayed.waitFor({ timeout: 60_000 });
  assert.ok(!((await page.content()).includes(whepToken)), 'the WHEP token is not shown');
  await relayed.locator('button.danger').click();
  await relayed.waitFor({ state: 'detached', timeout: 30_000 });

  // Deleted: the card goes, and the source is disconnected (ffmpeg ends); then the rule.
  const exited = new Promise<void>((resolve) => push.once('exit', () => resolve()));
  await page.locator('.ingress button.danger').click();
  await page.waitForSelector('#no-ingress');
  await exited;
  await page.click('nav.tabs a[href="#/rules"]');
  await page.locator('.rule button.danger').click();
  await page.waitForSelector('#no-rules');
  assert.deepEqual(failures, []);
});
