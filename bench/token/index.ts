// Token benchmark: build and verify ops/s of @reeltime/token against the official agora-token, same process.
// Run: node --import tsx bench/token/index.ts [--seconds S] [--rounds R]
// Each row alternates the two libraries for R rounds and reports medians, so a busy machine skews both alike.
import { parseArgs } from 'node:util';
import { buildRtcTokenWithUid, buildUserToken, parseToken, verifyRtcJoin, verifySignature } from '@reeltime/token';
import { agora, agoraBuilders } from '../../packages/token/src/testing/oracle.ts';

const APP_ID = '970CA35de60c44645bbae8a215061b33';
const CERT = '5CFd2fd1755d40ecb72977518be15d3b';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '0.4' }, rounds: { type: 'string', default: '5' } } });
const SECONDS = Number(values.seconds);
const ROUNDS = Number(values.rounds);

let sink = 0;

/** Runs fn in batches for about SECONDS after a warm-up; returns operations per second. */
function measure(fn: (i: number) => unknown): number {
  for (let i = 0; i < 2000; i++) fn(i);
  let ops = 0;
  const start = process.hrtime.bigint();
  const budget = BigInt(Math.round(SECONDS * 1e9));
  for (;;) {
    for (let k = 0; k < 500; k++, ops++) {
      const r = fn(ops);
      if (r) sink++;
    }
    const elapsed = process.hrtime.bigint() - start;
    if (elapsed >= budget) return (ops * 1e9) / Number(elapsed);
  }
}

interface Row {
  readonly name: string;
  readonly ours: number;
  readonly theirs: number;
  readonly ratio: number;
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

function row(name: string, ours: (i: number) => unknown, theirs: (i: number) => unknown): Row {
  const o: number[] = [];
  const t: number[] = [];
  const r: number[] = [];
  for (let k = 0; k < ROUNDS; k++) {
    // Alternate the order so neither side always runs on a colder JIT or a busier moment.
    const a = k % 2 ? measure(theirs) : 0;
    const b = measure(ours);
    const c = k % 2 ? a : measure(theirs);
    o.push(b);
    t.push(c);
    r.push(b / c);
  }
  return { name, ours: median(o), theirs: median(t), ratio: median(r) };
}

// A pool of distinct tokens (distinct salts and issue times) so verification does not re-check one token.
const POOL = 4096;
const pool = Array.from({ length: POOL }, (_, i) =>
  agoraBuilders.RtcTokenBuilder.buildTokenWithUid(APP_ID, CERT, 'room', 1000 + i, 1, 3600, 3600),
);
const nowSec = Math.floor(Date.now() / 1000);

const rows: Row[] = [
  row(
    'build RTC uid publisher',
    (i) => buildRtcTokenWithUid(APP_ID, CERT, 'room', 1000 + (i & 1023), 1, 3600, 3600),
    (i) => agoraBuilders.RtcTokenBuilder.buildTokenWithUid(APP_ID, CERT, 'room', 1000 + (i & 1023), 1, 3600, 3600),
  ),
  row(
    'build chat user',
    (i) => buildUserToken(APP_ID, CERT, `user-${i & 1023}`, 6000),
    (i) => agoraBuilders.ChatTokenBuilder.buildUserToken(APP_ID, CERT, `user-${i & 1023}`, 6000),
  ),
  row(
    'verify (parse + signature)',
    (i) => {
      const p = parseToken(pool[i % POOL]!);
      return p.ok && verifySignature(p.token, CERT);
    },
    (i) => {
      const t = new agora.AccessToken2('', '', 0, 0);
      return t.from_string(pool[i % POOL]!) && t.verifySignature(CERT);
    },
  ),
  row(
    'verifyRtcJoin (full check) vs agora verify',
    (i) => verifyRtcJoin(pool[i % POOL]!, { appId: APP_ID, appCertificate: CERT, now: nowSec, channel: 'room', uid: String(1000 + (i % POOL)), publish: true }).ok,
    (i) => {
      const t = new agora.AccessToken2('', '', 0, 0);
      return t.from_string(pool[i % POOL]!) && t.verifySignature(CERT);
    },
  ),
];

console.log(`node ${process.version}, ${ROUNDS} rounds x ${SECONDS}s per side, medians; verify pool ${POOL} distinct tokens`);
console.log('operation'.padEnd(44) + 'reeltime ops/s'.padStart(16) + 'agora ops/s'.padStart(14) + 'ratio'.padStart(8));
for (const r of rows) {
  console.log(
    r.name.padEnd(44) + Math.round(r.ours).toLocaleString('en-US').padStart(16) + Math.round(r.theirs).toLocaleString('en-US').padStart(14) + `${r.ratio.toFixed(2)}x`.padStart(8),
  );
}
if (sink < 0) console.log(sink);
