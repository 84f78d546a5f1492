// `reeltime record` end to end: the CLI as child processes (the test run's bundle of the sources, else
// bin/reeltime.mjs: REELTIME_ENTRY) against a real reeltime recording a synthetic publisher in individual mode.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runChild, spawnChild } from '../../process/index.ts';
import { APP, AUTH, BUCKET, startHarness, type Harness } from '../../recorders/individual/testing/harness.ts';
import { REELTIME_ENTRY, testServerEnv, waitUntil } from '../../testing/index.ts';
import { main } from '../main.ts';

const CNAME = 'cli-record';

let harness: Harness;
let cliDir: string;
before(async () => {
  // 4 s slices (a test-only setting): the first files are in the bucket after 4 s instead of 15.
  harness = await startHarness({ recording: { individualSliceSeconds: 4 } });
  cliDir = mkdtempSync(join(tmpdir(), 'reeltime-record-cli-'));
});
after(async () => {
  await harness?.close();
  rmSync(cliDir, { recursive: true, force: true });
});

/** The CLI's environment: the test credentials and its own data dir (where it keeps started sessions). */
function env(): Record<string, string> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('REELTIME_') && k !== 'DATABASE_URL'));
  return { ...clean, ...testServerEnv(cliDir), REELTIME_LOG_LEVEL: 'warn' };
}

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const r = await runChild(process.execPath, [...REELTIME_ENTRY, 'record', ...args, '--server', harness.server.url], { cwd: cliDir, env: env(), timeoutMs: 180_000 });
  return { code: r.code ?? 1, stdout: r.stdout.toString(), stderr: r.stderr };
}

test('record start --wait, query --json, watch and stop: status lines, then the files as playable bucket URLs', async () => {
  await harness.publish({ cname: CNAME, uid: 301, color: 'red', toneHz: 440 });
  const started = await cli('start', '--channel', CNAME, '--uid', '9001', '--bucket', BUCKET, '--wait', '--timeout', '120');
  assert.equal(started.code, 0, started.stderr);
  assert.match(started.stdout, /^started individual recording of "cli-record" as uid 9001: resourceId \S+ sid ([0-9a-f]{32})$/m);
  // Not a terminal: plain lines, the last one saying it records.
  assert.match(started.stdout.trim().split('\n').at(-1)!, /^(recorder ready \(4\)|recording \(5\)) {2}\d\d:\d\d {2}\d+ files? {2}\d+ uploaded, [\d.]+ k?M?B( \(\d+ waiting\))? {2}individual "cli-record" sid [0-9a-f]{32}$/);
  const sid = /sid ([0-9a-f]{32})$/m.exec(started.stdout)![1]!;
  const rid = /resourceId (\S+) sid /.exec(started.stdout)![1]!;

  // watch from the start: it keeps polling until its line counts uploads (below).
  const watcher = spawnChild(process.execPath, [...REELTIME_ENTRY, 'record', 'watch', '--interval', '0.5', '--server', harness.server.url], {
    cwd: cliDir,
    env: env(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let watched = '';
  watcher.stdout!.on('data', (d: Buffer) => (watched += d.toString()));
  const watchEnded = new Promise<number | null>((resolve) => watcher.once('exit', (code) => resolve(code)));

  // The first slices are written after a few seconds: wait (on the API itself, not a CLI process per poll) until
  // query lists a playlist per track, then check that the CLI's query lists them too.
  await waitUntil(async () => {
      const r = await harness.api('GET', harness.path(rid, sid, 'query'));
      const files = (r.body.serverResponse as { fileList?: unknown[] } | undefined)?.fileList;
      return (files?.length ?? 0) >= 2;
    }, { timeoutMs: 120_000, intervalMs: 200, what: 'two files in query' });
  const queriedCli = await cli('query', '--json');
  assert.equal(queriedCli.code, 0, queriedCli.stderr);
  const queried = JSON.parse(queriedCli.stdout) as { sid: string; serverResponse: { status: number; fileList?: { fileName: string }[] } };
  assert.ok((queried.serverResponse.fileList?.length ?? 0) >= 2, queriedCli.stdout);
  assert.equal(queried.sid, sid);

  // Its line counts the objects in the bucket and their bytes (the sessions API's uploads).
  await waitUntil(() => /recording \(5\) .* [1-9]\d* uploaded, [\d.]+ [kM]B/.test(watched), {
    timeoutMs: 60_000,
    intervalMs: 200,
    what: 'a status line with uploads from watch',
  });

  // The refused calls do not touch the session's state: they run beside the first update.
  const [updated, badHold, badLayout] = await Promise.all([
    cli('update', '--audio', '301', '--video', 'all'),
    cli('update', '--onhold', 'yes'),
    cli('update', '--layout', 'bestfit'),
  ]);
  assert.equal(updated.code, 0, updated.stderr);
  assert.equal(updated.stdout, `updated sid ${sid}\n`);
  assert.equal(badHold.code, 2, 'a usage error');
  assert.match(badHold.stderr, /--onhold must be true or false/);
  assert.equal(badLayout.code, 1, 'updateLayout is refused in individual mode');
  assert.match(badLayout.stderr, /^reeltime record update: 400 code \d+: /m);
  // --onhold pauses and resumes an individual recording (recordingConfig.onhold); query reports the hold.
  const held = await cli('update', '--onhold', 'true');
  assert.equal(held.code, 0, held.stderr);
  const heldQuery = await cli('query', '--json');
  assert.equal((JSON.parse(heldQuery.stdout) as { serverResponse: { onhold?: boolean } }).serverResponse.onhold, true, heldQuery.stdout);
  const resumed = await cli('update', '--onhold', 'false');
  assert.equal(resumed.code, 0, resumed.stderr);

  const stopped = await cli('stop');
  assert.equal(stopped.code, 0, stopped.stderr);
  const lines = stopped.stdout.trim().split('\n');
  assert.match(lines[0]!, new RegExp(`^stopped sid ${sid} \\((uploaded|backuped)\\): \\d+ files in bucket "${BUCKET}"$`));
  const urls = lines.slice(1).map((l) => l.trim());
  assert.ok(urls.length >= 2, stopped.stdout);
  for (const url of urls) {
    assert.ok(url.startsWith(`${harness.server.url}/bucket/${BUCKET}/`), url);
    const res = await fetch(url);
    assert.equal(res.status, 200, url);
    if (url.endsWith('.m3u8')) assert.match(await res.text(), /^#EXTM3U/);
  }

  assert.equal(await watchEnded, 0);
  assert.match(watched, new RegExp(`session ${sid} has ended\\n$`));

  // The session's notifications reached the harness's receiver, and the sessions API says so; query (404) meanwhile.
  const sessionUrl = `${harness.server.url}/v1/apps/${APP}/cloud_recording/sessions/${sid}`;
  const [again] = await Promise.all([
    cli('query'),
    waitUntil(async () => {
        const d = (await (await fetch(sessionUrl, { headers: { authorization: AUTH } })).json()) as { webhooks: { msgName: string; delivery: string }[] };
        return d.webhooks.length > 0 && d.webhooks.every((w) => w.delivery === 'delivered') && d.webhooks.some((w) => w.msgName === 'session_exit');
      }, { timeoutMs: 30_000, intervalMs: 200, what: 'every webhook of the session delivered' }),
  ]);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /404 code 404: failed to find worker/);

  // Once query stops answering, the sessions API still lists the session and its files.
  const [listed, filed] = await Promise.all([cli('list', '--channel', CNAME), cli('files')]);
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, new RegExp(`^${sid}  individual ended +8  [0-9-]+ [0-9:]+ +\\d+ files  "${CNAME}" uid 9001$`, 'm'));
  assert.equal(filed.code, 0, filed.stderr);
  const fileLines = filed.stdout.trim().split('\n');
  assert.match(fileLines[0]!, new RegExp(`^\\d+ files of sid ${sid} \\(individual, ended, (uploaded|backuped)\\):$`));
  assert.deepEqual(new Set(fileLines.slice(1).map((l) => l.trim()).filter((u) => u.endsWith('.m3u8'))), new Set(urls.filter((u) => u.endsWith('.m3u8'))));
});

test('record start refused by the service prints its error; usage errors exit 2', async () => {
  // The channel name's characters are the service's rule, not the CLI's.
  const refused = await cli('start', '--channel', 'cli*refused', '--uid', '9002');
  assert.equal(refused.code, 1, refused.stderr);
  assert.match(refused.stderr, /^reeltime record start: 400 code 2: cname: /m);

  const write = process.stderr.write;
  let err = '';
  process.stderr.write = ((s: string) => ((err += s), true)) as typeof process.stderr.write;
  try {
    assert.equal(await main(['record', 'start']), 2);
    assert.equal(await main(['record', 'start', '--channel', 'c', '--mode', 'audio']), 2);
    assert.equal(await main(['record', 'rewind']), 2);
  } finally {
    process.stderr.write = write;
  }
  assert.match(err, /--channel is required/);
  assert.match(err, /--mode must be individual, mix or web/);
  assert.match(err, /unknown record command "rewind"/);
});
