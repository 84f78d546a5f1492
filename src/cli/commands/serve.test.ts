// The `serve` start output (issue 25 item 15), from the real CLI in its own process: in production the banner does
// not print a bucket URL that answers 404, and a webhook the outbound guard will refuse is warned about at start.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startServerProcess } from '../../testing/index.ts';

async function waitFor(what: string, cond: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('production start: a private webhook is warned about, and the banner prints no bucket URL (it printed /bucket/, a 404)', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'reeltime-serve-'));
  const server = await startServerProcess({
    dataDir,
    env: {
      REELTIME_ENV: 'production',
      REELTIME_NOTIFY_WEBHOOK_URL: 'http://127.0.0.1:9/hook',
      REELTIME_NOTIFY_WEBHOOK_SECRET: 'webhook-secret-value',
    },
  });
  try {
    await waitFor('the webhook warning', () => /webhook URL will be refused at every delivery/.test(server.output()));
    const warning = server.output().split('\n').find((l) => /webhook URL will be refused/.test(l))!;
    assert.match(warning, /loopback/);
    assert.doesNotMatch(warning, /webhook-secret-value/);
    // The bucket is not served in production by default: no line for it (it printed `/bucket/`, a 404).
    const banner = server.output();
    assert.doesNotMatch(banner, /\/bucket\//);
    assert.equal((await fetch(`${server.url}/bucket/`)).status, 404);
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('development start: the banner describes the served bucket as objects, not a listing URL', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'reeltime-serve-'));
  const server = await startServerProcess({ dataDir, env: { REELTIME_ENV: 'development' } });
  try {
    await waitFor('the banner', () => /metrics/.test(server.output()));
    assert.match(server.output(), new RegExp(`local bucket +${server.url.replace(/[.]/g, '\\.')}/bucket/\\{bucket\\}/\\{key\\} +\\(public\\)`));
    assert.doesNotMatch(server.output(), /webhook URL will be refused/);
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
