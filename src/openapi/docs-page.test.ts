// GET /docs in headless Chromium: the page renders every operation of /openapi.json and fetches nothing but this
// server's own addresses.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launchTestChromium, type TestChromium } from '../testing/chromium.ts';
import { startTestServer, type TestServer } from '../testing/index.ts';

let server: TestServer;
let browser: TestChromium;
before(async () => {
  server = await startTestServer();
  browser = await launchTestChromium();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

test('the reference page lists every operation with its curl line and loads only from this server', async () => {
  const page = await browser.context.newPage();
  const requested: string[] = [];
  page.on('request', (r) => requested.push(r.url()));
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${server.url}/docs`);
  await page.waitForSelector('section#start');
  const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, { operationId?: string }>> };
  const ids = Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => op.operationId).filter((x): x is string => typeof x === 'string'));
  const shown = await page.$$eval('main section', (els) => els.map((e) => e.id));
  assert.deepEqual(new Set(shown), new Set(ids));
  const curl = await page.$eval('section#acquire > pre.curl', (e) => e.textContent ?? '');
  assert.match(curl, new RegExp(`^curl -X POST -u "\\$CUSTOMER_ID:\\$CUSTOMER_SECRET" -H 'content-type: application/json' -d @body.json '${server.url}/v1/apps/\\{appid\\}/cloud_recording/acquire'$`));
  assert.deepEqual(errors, []);
  assert.ok(requested.every((u) => u.startsWith(server.url)), requested.join('\n'));
  await page.close();
});
