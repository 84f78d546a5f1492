// `reeltime token` end to end: real processes through bin/reeltime.mjs (each spawn costs ~0.5 s, so few).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { buildAppToken, buildRtcTokenWithUid, parseToken, verifyRtcJoin } from '@reeltime/token';

const BIN = fileURLToPath(new URL('../../../bin/reeltime.mjs', import.meta.url));
const APP_ID = '970CA35de60c44645bbae8a215061b33';
const CERT = '5CFd2fd1755d40ecb72977518be15d3b';

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function cli(args: readonly string[], env: Record<string, string> = {}): Promise<Run> {
  const cwd = mkdtempSync(join(tmpdir(), 'reeltime-token-cli-'));
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('REELTIME_') && k !== 'DATABASE_URL'));
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, 'token', ...args], { cwd, env: { ...clean, ...env }, timeout: 60_000 }, (err, stdout, stderr) => {
      rmSync(cwd, { recursive: true, force: true });
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

test('token rtc prints the same token as the library, and inspect describes it', async () => {
  const built = await cli([
    'rtc', '--app-id', APP_ID, '--app-certificate', CERT, '--channel', 'room', '--uid', '42',
    '--role', 'publisher', '--expire', '600', '--privilege-expire', '300', '--salt', '1', '--issue-ts', '1111111',
  ]);
  assert.equal(built.code, 0, built.stderr);
  const token = built.stdout.trim();
  assert.equal(token, buildRtcTokenWithUid(APP_ID, CERT, 'room', 42, 1, 600, 300, { salt: 1, issueTs: 1111111 }));
  assert.ok(verifyRtcJoin(token, { appId: APP_ID, appCertificate: CERT, now: 1111112, channel: 'room', uid: '42', publish: true }).ok);

  const shown = await cli(['inspect', token, '--app-certificate', CERT, '--now', '1111711']);
  assert.equal(shown.code, 0, shown.stderr);
  const d = JSON.parse(shown.stdout) as Record<string, unknown>;
  assert.equal(d.version, '007');
  assert.equal(d.appId, APP_ID);
  assert.equal(d.issueTs, 1111111);
  assert.equal(d.expire, 600);
  assert.equal(d.salt, 1);
  assert.equal(d.signature, 'valid');
  assert.equal(d.expired, true);
  assert.deepEqual(d.services, [
    {
      type: 1,
      name: 'rtc',
      channelName: 'room',
      uid: '42',
      privileges: { joinChannel: 300, publishAudioStream: 300, publishVideoStream: 300, publishDataStream: 300 },
      privilegeExpiresAt: { joinChannel: 1111411, publishAudioStream: 1111411, publishVideoStream: 1111411, publishDataStream: 1111411 },
    },
  ]);
  assert.ok(!shown.stdout.includes(CERT));
});

test('token chat-app takes app id and certificate from the configuration; chat-user builds for a UUID', async () => {
  const env = { REELTIME_APP_ID: APP_ID, REELTIME_APP_CERTIFICATE: CERT };
  const [app, user] = await Promise.all([
    cli(['chat-app', '--expire', '600', '--salt', '1', '--issue-ts', '1111111'], env),
    cli(['chat-user', '--uuid', 'a1b2', '--expire', '6000'], env),
  ]);
  assert.equal(app.code, 0, app.stderr);
  assert.equal(app.stdout.trim(), buildAppToken(APP_ID, CERT, 600, { salt: 1, issueTs: 1111111 }));
  assert.equal(user.code, 0, user.stderr);
  const p = parseToken(user.stdout.trim());
  assert.ok(p.ok);
  assert.equal(p.token.services[0]?.type, 5);
  assert.equal(p.token.services[0]?.type === 5 && p.token.services[0].userId, 'a1b2');
});

test('bad input: malformed token exits 1 with the reason; a bad flag exits 2 naming it', async () => {
  const [malformed, badRole, badExpire] = await Promise.all([
    cli(['inspect', '007abc']),
    cli(['rtc', '--app-id', APP_ID, '--app-certificate', CERT, '--channel', 'c', '--uid', '1', '--role', 'admin', '--expire', '5']),
    cli(['chat-app', '--app-id', APP_ID, '--app-certificate', CERT, '--expire', '-1']),
  ]);
  assert.equal(malformed.code, 1);
  assert.equal(malformed.stdout, '');
  assert.match(malformed.stderr, /malformed/);
  assert.equal(badRole.code, 2);
  assert.match(badRole.stderr, /--role/);
  assert.equal(badExpire.code, 2);
  assert.match(badExpire.stderr, /--expire/);
});
