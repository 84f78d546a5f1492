// Recording rules end to end: a rule records each matching channel when its first publisher comes, through the
// recording API (sessions, webhooks, files as for any client), never twice at once, and again after the channel
// emptied and the recording ended (maxIdleTime).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseUserFileName } from '../media/index.ts';
import { APP, AUTH, startHarness, storageConfig } from '../recorders/individual/testing/harness.ts';
import { bucketKeys } from '../recorders/individual/testing/media-checks.ts';
import { waitUntil } from '../testing/wait.ts';

interface RuleView {
  ruleId: string;
  clientRequest: { storageConfig: Record<string, unknown> };
  recordings?: { cname: string; state: string; resourceId: string | null; sid: string | null; uid: string | null; error?: string }[];
}

test('a rule records matching channels on their first publisher, once, and again after the recording ended', async () => {
  const h = await startHarness();
  const call = async (method: string, path: string, body?: unknown, auth = AUTH) => {
    const res = await fetch(`${h.server.url}/v1/apps/${APP}/recording-rules${path}`, {
      method,
      headers: { ...(auth ? { authorization: auth } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: res.status === 204 ? {} : ((await res.json()) as Record<string, unknown>) };
  };
  try {
    // Refusals first: no credentials, a field named.
    assert.equal((await call('GET', '', undefined, '')).status, 401);
    const bad = await call('POST', '', { cname: 'class-*', mode: 'individual', clientRequest: { storageConfig: { ...storageConfig(), vendor: 99 } } });
    assert.equal(bad.status, 400);
    assert.match(String(bad.body.reason), /^clientRequest\.storageConfig\.vendor/);

    const created = await call('POST', '', {
      cname: 'class-*',
      mode: 'individual',
      clientRequest: {
        storageConfig: storageConfig(),
        recordingConfig: { channelType: 0, subscribeUidGroup: 0, maxIdleTime: 5 },
        recordingFileConfig: { avFileType: ['hls'] },
      },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const rule = created.body as unknown as RuleView;
    assert.equal(rule.clientRequest.storageConfig.secretKey, '[redacted]', 'storage keys never answered');
    assert.equal(((await call('GET', '')).body.rules as unknown[]).length, 1);

    const recordings = async () => ((await call('GET', `/${rule.ruleId}`)).body as unknown as RuleView).recordings ?? [];
    const recordingOf = (cname: string) => waitUntil(async () => (await recordings()).find((r) => r.cname === cname && r.state === 'recording'), {
      timeoutMs: 30_000,
      intervalMs: 200,
      what: `a recording of ${cname}`,
    });

    // Two publishers one after the other in a matching channel, one in a channel that does not match.
    const publishers = [];
    publishers.push(await h.publish({ cname: 'class-a', uid: 11, color: 'red', toneHz: 440 }));
    const first = await recordingOf('class-a');
    publishers.push(await h.publish({ cname: 'class-a', uid: 12, color: 'blue', toneHz: 880 }));
    publishers.push(await h.publish({ cname: 'lobby', uid: 13, color: 'green', toneHz: 660 }));
    // The recording of class-a writes both publishers (it follows the channel); one session only.
    await waitUntil(
      () => {
        const uids = new Set(bucketKeys(h.bucketDir).filter((k) => k.includes(first.sid!)).map((k) => parseUserFileName(k.split('/').pop()!)?.uid));
        return uids.has('11') && uids.has('12');
      },
      { timeoutMs: 60_000, intervalMs: 250, what: 'files of both publishers of class-a' },
    );
    assert.ok(h.events.some((e) => e.payload.sid === first.sid), "webhooks of the rule's session");
    assert.deepEqual((await recordings()).map((r) => r.cname), ['class-a'], 'lobby does not match');
    assert.equal((await recordings())[0]!.sid, first.sid, 'the second publisher did not start a second recording');

    // Everyone leaves: the recording ends after maxIdleTime; the next publisher starts a new one.
    await Promise.all(publishers.map((p) => p.stop()));
    await waitUntil(async () => {
      const q = await fetch(`${h.server.url}/v1/apps/${APP}/cloud_recording/resourceid/${encodeURIComponent(first.resourceId!)}/sid/${first.sid}/mode/individual/query`, { headers: { authorization: AUTH } });
      return q.status === 404;
    }, { timeoutMs: 60_000, intervalMs: 500, what: 'the first recording to end' });
    await h.publish({ cname: 'class-a', uid: 14, color: 'white', toneHz: 550 });
    const second = await waitUntil(async () => {
      const r = (await recordings()).find((x) => x.cname === 'class-a' && x.state === 'recording');
      return r && r.sid !== first.sid ? r : undefined;
    }, { timeoutMs: 30_000, intervalMs: 200, what: 'a second recording' });
    assert.notEqual(second.sid, first.sid);

    assert.equal((await call('DELETE', `/${rule.ruleId}`)).status, 204);
    assert.equal((await call('GET', `/${rule.ruleId}`)).status, 404);
  } finally {
    await h.close();
  }
});
