// The console's server side: page, scripts and npm files served locally; settings; the channel list it reads; the
// bodies its record form builds are accepted by the recording API in every mode.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { layout, MIX_LAYOUT_KINDS } from '../media/mix/index.ts';
import { RECORDING_STATUS } from '../recording/index.ts';
import { allDoubles, TEST_APP_ID, TEST_AUTH } from '../recording/testing/index.ts';
import { startTestServer, waitUntil } from '../testing/index.ts';
import { readdirSync } from 'node:fs';
import { PAGE_FILES } from './routes.ts';

// The page's own module (plain JS for the browser, typed by bodies.d.ts), loaded as the page loads it.
const { acquireBody, curlCommands, defaultForm, holdBody, startBody, updateTemplate } = await import('./page/bodies.js');
type RecordForm = Parameters<typeof startBody>[0];
const { isWebmPlaylist, parseMediaPlaylist } = await import('./page/webm-playlist.js');

test('console: page at /, scripts and vendor files from node_modules, settings without secrets unless generated in development', async () => {
  const s = await startTestServer({ recorders: allDoubles() });
  try {
    const page = await fetch(`${s.url}/`);
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /<script type="module" src="\/console\/app\.js">/);
    // Every script the page imports is served here: nothing comes from another origin.
    assert.doesNotMatch(html, /https?:\/\//);
    for (const path of ['/console/app.js', '/console/webm-playlist.js', '/console/style.css', '/console/vendor/preact.mjs', '/console/vendor/hooks.mjs', '/console/vendor/htm.mjs', '/console/vendor/hls.mjs']) {
      const r = await fetch(`${s.url}${path}`);
      assert.equal(r.status, 200, path);
      assert.ok((await r.text()).length > 100, path);
    }
    assert.equal((await fetch(`${s.url}/console/vendor/../../package.json`)).status, 404);
    // Every file of the page folder is served (a module left out breaks the whole page in the browser).
    const own = readdirSync(new URL('./page/', import.meta.url)).filter((f) => /\.(js|css|html)$/.test(f) && f !== 'index.html');
    assert.deepEqual(own.filter((f) => !(f in PAGE_FILES)), []);
    for (const f of own) assert.equal((await fetch(`${s.url}/console/${f}`)).status, 200, f);
    // The layout preview's module is the mix recorder's own layout function: same regions, every kind, many users.
    const mod = (await import(`data:text/javascript;base64,${Buffer.from(await (await fetch(`${s.url}/console/mix-layout.mjs`)).text()).toString('base64')}`)) as { layout: typeof layout };
    for (const kind of MIX_LAYOUT_KINDS) {
      for (const n of [1, 2, 5, 17, 20]) {
        const users = Array.from({ length: n }, (_, i) => String(i + 1));
        assert.deepEqual(mod.layout(kind, { width: 1280, height: 720 }, users), layout(kind, { width: 1280, height: 720 }, users), `kind ${kind}, ${n} users`);
      }
    }
    // The page's status names read the server's own catalogue.
    const vocabulary = (await import(`data:text/javascript;base64,${Buffer.from(await (await fetch(`${s.url}/console/vocabulary.mjs`)).text()).toString('base64')}`)) as { RECORDING_STATUS: unknown };
    assert.deepEqual(vocabulary.RECORDING_STATUS, RECORDING_STATUS);
    // Configured credentials are never handed out.
    const settings = (await (await fetch(`${s.url}/console/settings.json`)).json()) as Record<string, unknown>;
    assert.deepEqual(settings, { env: 'development', appId: TEST_APP_ID, devCredentials: null, devTokens: true });
  } finally {
    await s.close();
  }
});

test('WebM playlist player: slices, start times and signed slice links of a VP8 user\'s playlist', () => {
  const text = [
    '#EXTM3U', '#EXT-X-VERSION:3', '#EXT-X-TARGETDURATION:16', '#EXTINF:15.2', 'a_20260101000000000.webm?expires=9&signature=x',
    '#EXT-X-DISCONTINUITY', '#EXTINF:4.8', 'a_20260101000020000.webm?expires=9&signature=y', '#EXT-X-ENDLIST', '',
  ].join('\n');
  const list = parseMediaPlaylist(text, 'http://127.0.0.1:1/bucket/b/rec/a.m3u8?expires=9&signature=p');
  assert.deepEqual(list.segments.map((s) => [s.url, s.start, s.duration]), [
    ['http://127.0.0.1:1/bucket/b/rec/a_20260101000000000.webm?expires=9&signature=x', 0, 15.2],
    ['http://127.0.0.1:1/bucket/b/rec/a_20260101000020000.webm?expires=9&signature=y', 15.2, 4.8],
  ]);
  assert.equal(list.ended, true);
  assert.ok(isWebmPlaylist(text));
  assert.ok(!isWebmPlaylist('#EXTM3U\n#EXTINF:15\na_1.ts\n'));
  assert.equal(parseMediaPlaylist('#EXTM3U\n#EXTINF:2\nx.webm\n', 'http://h/p.m3u8').ended, false);
});

test('production: the sessions API hands out signed file URLs', async () => {
  const s = await startTestServer({
    recorders: allDoubles(),
    env: { REELTIME_ENV: 'production' },
    values: { recording: { rateLimitPerSecond: 0 }, storage: { routeAllToLocal: true, serveBucket: true } },
  });
  try {
    const rec = `${s.url}/v1/apps/${TEST_APP_ID}/cloud_recording`;
    const f = { ...defaultForm({ cname: 'signed', profile: null }), mode: 'mix' as const };
    const call = async (path: string, body?: unknown) =>
      (await (
        await fetch(`${rec}${path}`, {
          method: body === undefined ? 'GET' : 'POST',
          headers: { authorization: TEST_AUTH, 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        })
      ).json()) as Record<string, unknown>;
    const rid = (await call('/acquire', acquireBody(f))).resourceId as string;
    const sid = (await call(`/resourceid/${rid}/mode/mix/start`, startBody(f))).sid as string;
    const files = await waitUntil(
      async () => {
        const listed = (await call(`/sessions/${sid}`)).files as { url: string }[];
        return listed.length > 0 && listed;
      },
      { what: 'the session to list a file' },
    );
    assert.ok(files.length > 0);
    assert.match(files[0]!.url, /\/bucket\/recordings\/.+\?expires=\d+&signature=[\w-]+$/);
  } finally {
    await s.close();
  }
});

test('console: generated development credentials are prefilled; production never', async () => {
  const env = { REELTIME_APP_ID: '', REELTIME_APP_CERTIFICATE: '', REELTIME_CUSTOMER_ID: '', REELTIME_CUSTOMER_SECRET: '' };
  const dev = await startTestServer({ recorders: allDoubles(), env });
  try {
    const settings = (await (await fetch(`${dev.url}/console/settings.json`)).json()) as { devCredentials: Record<string, string> };
    assert.deepEqual(settings.devCredentials, { customerId: dev.config.customerId, customerSecret: dev.config.customerSecret });
  } finally {
    await dev.close();
  }
  const prod = await startTestServer({ recorders: allDoubles(), env: { REELTIME_ENV: 'production' } });
  try {
    const settings = (await (await fetch(`${prod.url}/console/settings.json`)).json()) as Record<string, unknown>;
    assert.equal(settings.devCredentials, null);
    assert.equal(settings.devTokens, false);
  } finally {
    await prod.close();
  }
});

test('channel list: customer credentials only; the record form bodies start, update, pause and resume a session in every mode', async () => {
  const s = await startTestServer({ recorders: allDoubles(), values: { recording: { rateLimitPerSecond: 0 } } });
  try {
    const list = `${s.url}/rtc/v1/apps/${TEST_APP_ID}/channels`;
    assert.equal((await fetch(list)).status, 401);
    assert.equal((await fetch(list, { headers: { authorization: `Basic ${btoa('test-customer:nope')}` } })).status, 401);
    const ok = await fetch(list, { headers: { authorization: TEST_AUTH } });
    assert.deepEqual(await ok.json(), { appId: TEST_APP_ID, channels: [] });

    const rec = `${s.url}/v1/apps/${TEST_APP_ID}/cloud_recording`;
    const post = async (path: string, body: unknown) => {
      const r = await fetch(`${rec}${path}`, { method: 'POST', headers: { authorization: TEST_AUTH, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: r.status, body: (await r.json()) as Record<string, unknown> };
    };
    const forms: RecordForm[] = [
      { ...defaultForm({ cname: 'c1', profile: 'communication' }), mode: 'individual' },
      { ...defaultForm({ cname: 'c2', profile: 'live' }), mode: 'mix', layout: 2, avFileType: 'hls+mp4' },
      { ...defaultForm({ cname: 'c3', profile: null }), mode: 'web', url: 'https://example.com/page', onhold: true },
      { ...defaultForm({ cname: 'c4', profile: null }), mode: 'web', url: 'https://example.com/page', rtmpUrl: 'rtmp://127.0.0.1/live/x' },
    ];
    for (const f of forms) {
      const acquired = await post('/acquire', acquireBody(f));
      assert.equal(acquired.status, 200, JSON.stringify(acquired.body));
      const started = await post(`/resourceid/${acquired.body.resourceId as string}/mode/${f.mode}/start`, startBody(f));
      assert.equal(started.status, 200, `${f.mode}: ${JSON.stringify(started.body)}`);
      const curl = curlCommands(s.url, `/v1/apps/${TEST_APP_ID}/cloud_recording`, f);
      assert.ok(curl.start.includes(JSON.stringify(startBody(f))));
      assert.ok(!curl.start.includes('test-secret'));
      // The session page's update box starts from a body the API accepts.
      const sid = started.body.sid as string;
      const upd = await post(`/resourceid/${acquired.body.resourceId as string}/sid/${sid}/mode/${f.mode}/update`, {
        cname: f.cname,
        uid: f.uid,
        clientRequest: updateTemplate({ mode: f.mode, onhold: f.onhold }),
      });
      assert.equal(upd.status, 200, `${f.mode} update: ${JSON.stringify(upd.body)}`);
      // Pause and Resume: the session detail follows the hold.
      for (const onhold of [true, false]) {
        const hold = await post(`/resourceid/${acquired.body.resourceId as string}/sid/${sid}/mode/${f.mode}/update`, { cname: f.cname, uid: f.uid, clientRequest: holdBody(f.mode, onhold) });
        assert.equal(hold.status, 200, `${f.mode} hold ${onhold}: ${JSON.stringify(hold.body)}`);
        const detail = await fetch(`${rec}/sessions/${sid}`, { headers: { authorization: TEST_AUTH } });
        assert.equal(((await detail.json()) as { onhold: boolean }).onhold, onhold, `${f.mode} detail onhold`);
      }
    }
  } finally {
    await s.close();
  }
});
