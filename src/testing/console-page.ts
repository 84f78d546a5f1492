// The console in a test Chromium, signed in as the test customer, at one session's page.
import type { Page } from 'playwright-core';
import type { TestChromium } from './chromium.ts';
import { TEST_CUSTOMER_SECRET } from './credentials.ts';

/** A new page of `browser` on the console of `baseUrl`, signed in, showing session `sid`; page errors go to `failures`. */
export async function openSessionPage(browser: TestChromium, baseUrl: string, sid: string, failures: string[]): Promise<Page> {
  const page = await browser.context.newPage();
  page.setDefaultTimeout(120_000);
  page.on('pageerror', (e) => failures.push(e.message));
  await page.goto(`${baseUrl}/`);
  await page.fill('input[name=customerId]', 'test-customer');
  await page.fill('input[name=customerSecret]', TEST_CUSTOMER_SECRET);
  await page.click('#signin button.primary');
  await page.evaluate((s) => (location.hash = `#/recordings/${s}`), sid);
  await page.waitForSelector('#session');
  return page;
}
