// TURN with Debian's coturn on loopback: a Chromium publisher that may only use relayed candidates
// (iceTransportPolicy "relay", the call page's ?relay=1) publishes through coturn over UDP and over TCP and is
// recorded in individual mode with its camera's colour; coturn refuses wrong and expired credentials.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parseUserFileName } from '../../media/index.ts';
import { rtcToken, startHarness, storageConfig } from '../../recorders/individual/testing/harness.ts';
import { bucketKeys, centrePixel, isColour, slicesWritten } from '../../recorders/individual/testing/media-checks.ts';
import { launchTestChromium, type TestChromium } from '../../testing/chromium.ts';
import { waitUntil } from '../../testing/wait.ts';
import { startTestCoturn, type TestCoturn } from './testing/coturn.ts';
import { callPageUrl } from '../../testing/call-page.ts';

/** The fake camera: one magenta frame, looped by Chromium. */
const CAMERA_RGB = [200, 40, 160] as const;
const work = mkdtempSync(join(tmpdir(), 'reeltime-turn-'));
const camera = join(work, 'camera.y4m');
let coturn: TestCoturn;
let browser: TestChromium;

before(async () => {
  const hex = CAMERA_RGB.map((v) => v.toString(16).padStart(2, '0')).join('');
  execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', `color=c=0x${hex}:s=320x240:r=15`, '-frames:v', '15', '-pix_fmt', 'yuv420p', '-y', camera]);
  coturn = await startTestCoturn();
  browser = await launchTestChromium([`--use-file-for-fake-video-capture=${camera}`]);
});
after(async () => {
  await browser?.close();
  await coturn?.close();
  rmSync(work, { recursive: true, force: true });
});

type Reeltime = { joined?: boolean; publish?: { pc: RTCPeerConnection } };

/** The publisher's selected pair: the local candidate's type and, for a relayed one, how it reaches coturn. */
const selectedLocal = () => async () => {
  const pc = (window as unknown as { reeltime: Reeltime }).reeltime.publish!.pc;
  const stats: Array<Record<string, unknown>> = [];
  (await pc.getStats()).forEach((s: Record<string, unknown>) => stats.push(s));
  const transport = stats.find((s) => s.type === 'transport');
  const pair = stats.find((s) => s.id === transport?.selectedCandidatePairId);
  const local = stats.find((s) => s.id === pair?.localCandidateId);
  return { candidateType: local?.candidateType, relayProtocol: local?.relayProtocol };
};

for (const transport of ['udp', 'tcp'] as const) {
  test(`a relay-only Chromium publisher goes through coturn over ${transport.toUpperCase()} and is recorded with its colour`, async () => {
    const url = coturn.urls.find((u) => u.endsWith(`transport=${transport}`))!;
    const h = await startHarness({ channel: { turnUrls: [url], turnSecret: coturn.secret, turnCredentialTtlSeconds: 600 } });
    const page = await browser.context.newPage();
    try {
      const cname = `turn-${transport}`;
      const uid = transport === 'udp' ? 501 : 502;
      const whip = page.waitForResponse((r) => r.url().includes('/whip') && r.request().method() === 'POST');
      await page.goto(callPageUrl(h.server.url, cname, uid, { relay: '1' }));
      await page.waitForFunction(() => (window as unknown as { reeltime?: Reeltime }).reeltime?.joined === true, undefined, { timeout: 30_000 });

      // RFC 9725 §4.6: the 201 names the TURN server with credentials coturn accepts for this user.
      const link = (await whip).headers().link ?? '';
      const m = /^<([^>]+)>; rel="ice-server"; username="(\d+):(\d+)"; credential="([^"]+)"; credential-type="password"$/.exec(link);
      assert.ok(m, `Link: ${link}`);
      assert.equal(m[1], url);
      assert.equal(m[3], String(uid));
      assert.equal(m[4], createHmac('sha1', coturn.secret).update(`${m[2]}:${m[3]}`).digest('base64'));

      const pair = await waitUntil(async () => {
        const p = await page.evaluate(selectedLocal());
        return p.candidateType ? p : undefined;
      }, { timeoutMs: 20_000, intervalMs: 200, what: 'a selected candidate pair' });
      assert.deepEqual(pair, { candidateType: 'relay', relayProtocol: transport });
      const { resourceId, sid } = await h.startRecording(cname, '9501', {
        token: rtcToken(cname, 9501, 2),
        storageConfig: storageConfig(),
        recordingConfig: { channelType: 0, subscribeUidGroup: 0, streamTypes: 1 },
        recordingFileConfig: { avFileType: ['hls'] },
      });
      await waitUntil(() => slicesWritten(join(h.server.dataDir, 'recorder'), 2 * 1024).length >= 1, { timeoutMs: 60_000, intervalMs: 200, what: 'a video slice on disk' });
      const stop = await h.api('POST', h.path(resourceId, sid, 'stop'), { cname, uid: '9501', clientRequest: {} });
      assert.equal(stop.status, 200, JSON.stringify(stop.body));
      const video = bucketKeys(h.bucketDir).filter((k) => {
        const p = parseUserFileName(k.split('/').pop()!);
        return p?.uid === String(uid) && p.track === 'video' && p.extension !== 'm3u8';
      });
      assert.ok(video.length >= 1, bucketKeys(h.bucketDir).join('\n'));
      const rgb = await centrePixel(join(h.bucketDir, video[0]!), 0.5);
      assert.ok(isColour(rgb, CAMERA_RGB), `centre pixel ${rgb}, camera ${CAMERA_RGB}`);
      assert.match(coturn.output(), new RegExp(`user <\\d+:${uid}>.*ALLOCATE processed, success`), 'coturn allocated for this user');
    } finally {
      await page.close();
      await h.close();
    }
  });
}

test('coturn refuses a wrong and an expired credential (401): no relayed candidate', async () => {
  const page = await browser.context.newPage();
  try {
    const now = Math.floor(Date.now() / 1000);
    const sign = (username: string) => createHmac('sha1', coturn.secret).update(username).digest('base64');
    const cases = {
      wrong: { username: `${now + 600}:7`, credential: sign(`${now + 600}:8`) },
      expired: { username: `${now - 60}:7`, credential: sign(`${now - 60}:7`) },
      valid: { username: `${now + 600}:7`, credential: sign(`${now + 600}:7`) },
    };
    const gather = async (args: { url: string; username: string; credential: string }) => {
      const pc = new RTCPeerConnection({ iceServers: [{ urls: args.url, username: args.username, credential: args.credential }], iceTransportPolicy: 'relay' });
      const errors: number[] = [];
      const relayed: string[] = [];
      pc.addEventListener('icecandidateerror', (e) => errors.push((e as RTCPeerConnectionIceErrorEvent).errorCode));
      pc.addEventListener('icecandidate', (e) => e.candidate && relayed.push(e.candidate.type ?? ''));
      pc.createDataChannel('probe');
      await pc.setLocalDescription(await pc.createOffer());
      await new Promise<void>((resolve) => {
        if (pc.iceGatheringState === 'complete') resolve();
        pc.addEventListener('icegatheringstatechange', () => pc.iceGatheringState === 'complete' && resolve());
      });
      pc.close();
      return { errors, relayed };
    };
    await page.goto('about:blank');
    const url = coturn.urls[0]!;
    for (const [name, c] of Object.entries(cases)) {
      const r = await page.evaluate(gather, { url, ...c });
      if (name === 'valid') assert.deepEqual(r, { errors: [], relayed: ['relay'] }, name);
      else assert.deepEqual(r, { errors: [401], relayed: [] }, name);
    }
  } finally {
    await page.close();
  }
});
