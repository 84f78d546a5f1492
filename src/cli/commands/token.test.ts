// `reeltime token` end to end: real processes through bin/reeltime.mjs (each spawn costs ~0.5 s, so few).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { buildAppToken, buildRtcTokenWithUid, parseToken, verifyRtcJoin } from '@reeltime/token';
import { runChild } from '../../process/index.ts';
import { UsageError } from '../command.ts';
import { token } from './token.ts';

const BIN = fileURLToPath(new URL('../../../bin/reeltime.mjs', import.meta.url));
const APP_ID = '970CA35de60c44645bbae8a215061b33';
const CERT = '5CFd2fd1755d40ecb72977518be15d3b';

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function cli(args: readonly string[], env: Record<string, string> = {}): Promise<Run> {
  const cwd = mkdtempSync(join(tmpdir(), 'reeltime-token-cli-'));
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('REELTIME_') && k !== 'DATABASE_URL'));
  try {
    const r = await runChild(process.execPath, [BIN, 'token', ...args], { cwd, env: { ...clean, ...env }, timeoutMs: 60_000 });
    return { code: r.code ?? 1, stdout: r.stdout.toString(), stderr: r.stderr };
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

/** Runs the command in-process (no spawn), capturing what it prints. */
async function inProcess(args: readonly string[]): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const write = { out: process.stdout.write, err: process.stderr.write };
  process.stdout.write = ((c: string) => out.push(String(c)) > 0) as typeof process.stdout.write;
  process.stderr.write = ((c: string) => err.push(String(c)) > 0) as typeof process.stderr.write;
  try {
    const code = await token.run(args);
    return { code, stdout: out.join(''), stderr: err.join('') };
  } finally {
    process.stdout.write = write.out;
    process.stderr.write = write.err;
  }
}

test('spawned: rtc prints the library token, inspect describes one, chat-app uses the configured app, bad tokens exit 1', async () => {
  const expected = buildRtcTokenWithUid(APP_ID, CERT, 'room', 42, 1, 600, 300, { salt: 1, issueTs: 1111111 });
  const env = { REELTIME_APP_ID: APP_ID, REELTIME_APP_CERTIFICATE: CERT };
  const [built, shown, app, malformed] = await Promise.all([
    cli([
      'rtc', '--app-id', APP_ID, '--app-certificate', CERT, '--channel', 'room', '--uid', '42',
      '--role', 'publisher', '--expire', '600', '--privilege-expire', '300', '--salt', '1', '--issue-ts', '1111111',
    ]),
    cli(['inspect', expected, '--app-certificate', CERT, '--now', '1111711']),
    cli(['chat-app', '--expire', '600', '--salt', '1', '--issue-ts', '1111111'], env),
    cli(['inspect', '007abc']),
  ]);

  assert.equal(built.code, 0, built.stderr);
  assert.equal(built.stdout, expected + '\n');
  assert.ok(verifyRtcJoin(expected, { appId: APP_ID, appCertificate: CERT, now: 1111112, channel: 'room', uid: '42', publish: true }).ok);

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

  assert.equal(app.code, 0, app.stderr);
  assert.equal(app.stdout.trim(), buildAppToken(APP_ID, CERT, 600, { salt: 1, issueTs: 1111111 }));

  assert.equal(malformed.code, 1);
  assert.equal(malformed.stdout, '');
  assert.match(malformed.stderr, /malformed/);
});

test('in-process: chat-user, inspect trims a pasted token, and bad flags are usage errors naming the flag', async () => {
  const creds = ['--app-id', APP_ID, '--app-certificate', CERT];
  const user = await inProcess(['chat-user', ...creds, '--uuid', 'a1b2', '--expire', '6000']);
  assert.equal(user.code, 0, user.stderr);
  const p = parseToken(user.stdout.trim());
  assert.ok(p.ok);
  const chat = p.token.services[0];
  assert.ok(chat?.type === 5);
  assert.equal(chat.userId, 'a1b2');

  const other = buildAppToken('f'.repeat(32), CERT, 600);
  const shown = await inProcess(['inspect', ` ${other}\n`, '--app-certificate', CERT]);
  assert.equal(shown.code, 0, shown.stderr);
  assert.equal((JSON.parse(shown.stdout) as { signature: string }).signature, 'valid');

  const bad: [readonly string[], RegExp][] = [
    [['rtc', ...creds, '--channel', 'c', '--uid', '1', '--role', 'admin', '--expire', '5'], /--role/],
    [['rtc', ...creds, '--channel', 'c', '--uid', '1', '--account', 'x', '--role', 'publisher', '--expire', '5'], /--uid.*--account/],
    [['rtc', ...creds, '--channel', 'c', '--uid', '4294967296', '--role', 'publisher', '--expire', '5'], /--uid/],
    [['chat-app', ...creds, '--expire', '1e3'], /--expire/],
    [['chat-app', ...creds], /--expire is required/],
    [['chat-app', '--app-id', 'xyz', '--app-certificate', CERT, '--expire', '5'], /--app-id/],
    [['chat-user', ...creds, '--expire', '5'], /--uuid is required/],
    [['chat-user', ...creds, '--uuid', 'u', '--expire', '604800'], /--expire must be at most 86400 \(24 hours/],
    [['chat-app', ...creds, '--expire', '86401'], /--expire must be at most 86400/],
    [['inspect'], /exactly one TOKEN/],
    [['chat-app', ...creds, '--expire', '5', '--bogus'], /bogus/],
    [['mint'], /unknown token command/],
  ];
  for (const [args, message] of bad) await assert.rejects(inProcess(args), (e: Error) => e instanceof UsageError && message.test(e.message), args.join(' '));
});
