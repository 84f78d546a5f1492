import assert from 'node:assert/strict';
import { test } from 'node:test';
import { allowedCandidates } from './candidates.ts';

const ANSWER = [
  'v=0',
  'm=video 9 UDP/TLS/RTP/SAVPF 96',
  'a=candidate:1 1 udp 2130706431 93.184.216.34 40000 typ host',
  'a=candidate:2 1 udp 2130706431 10.0.0.5 40000 typ host',
  'a=candidate:3 1 udp 2130706431 127.0.0.1 40000 typ host',
  'a=candidate:4 1 udp 2130706431 3f1c9e2a-cam.local 40000 typ host',
  'a=end-of-candidates',
  '',
].join('\r\n');
const SOURCE = new URL('https://93.184.216.34/whep');
const addresses = (sdp: string) => sdp.split('\r\n').filter((l) => l.startsWith('a=candidate:')).map((l) => l.split(' ')[4]);

test('a WHEP source\'s answer keeps only the ICE candidates the outbound guard allows; host names are dropped', async () => {
  const strict = await allowedCandidates(ANSWER, { allowPrivate: false }, SOURCE);
  assert.deepEqual(addresses(strict.sdp), ['93.184.216.34']);
  assert.equal(strict.dropped, 3);
  assert.ok(strict.sdp.includes('a=end-of-candidates'), 'the other lines stay');
  const ranged = await allowedCandidates(ANSWER, { allowPrivate: false, allow: ['10.0.0.0/8'] }, SOURCE);
  assert.deepEqual(addresses(ranged.sdp), ['93.184.216.34', '10.0.0.5']);
  const open = await allowedCandidates(ANSWER, { allowPrivate: true }, SOURCE);
  assert.deepEqual(addresses(open.sdp), ['93.184.216.34', '10.0.0.5', '127.0.0.1']);
});
