import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../server/config.ts';

const creds = {
  REELTIME_APP_ID: '970CA35de60c44645bbae8a215061b33',
  REELTIME_APP_CERTIFICATE: '5CFd2fd1755d40ecb72977518be15d3b',
  REELTIME_CUSTOMER_ID: 'c',
  REELTIME_CUSTOMER_SECRET: 'customer-secret-0123456789',
};

const parse = (env: Record<string, string>) => {
  const cwd = mkdtempSync(join(tmpdir(), 'reeltime-icfg-'));
  try {
    return loadConfig({ cwd, values: {}, env: { ...creds, ...env } }).ingress;
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
};

test('ingress settings: off by default, loopback by default, and a bad value names its setting', () => {
  const d = parse({});
  assert.equal(d.rtmpPort, undefined);
  assert.equal(d.srtPorts, undefined);
  assert.equal(d.rtmpHost, '127.0.0.1');
  assert.equal(d.srtHost, '127.0.0.1');
  assert.equal(d.rtmpApp, 'live');
  assert.deepEqual([d.capacity, d.cost, d.transcodeCost, d.cpuThresholdPercent], [100, 3, 15, 100]);
  assert.equal(parse({ REELTIME_INGRESS_TRANSCODE_COST: '40' }).transcodeCost, 40);
  assert.throws(() => parse({ REELTIME_INGRESS_TRANSCODE_COST: '-1' }), /REELTIME_INGRESS_TRANSCODE_COST \(ingress.transcodeCost\)/);
  assert.deepEqual([parse({ REELTIME_INGRESS_CAPACITY: '12', REELTIME_INGRESS_COST: '4' })].map((c) => [c.capacity, c.cost]), [[12, 4]]);
  assert.throws(() => parse({ REELTIME_INGRESS_CPU_THRESHOLD_PERCENT: '0' }), /REELTIME_INGRESS_CPU_THRESHOLD_PERCENT \(ingress.cpuThresholdPercent\)/);
  assert.equal(d.mediaPath, 'auto');
  assert.equal(parse({ REELTIME_INGRESS_MEDIA_PATH: 'whip' }).mediaPath, 'whip');
  assert.throws(() => parse({ REELTIME_INGRESS_MEDIA_PATH: 'whep' }), /REELTIME_INGRESS_MEDIA_PATH \(ingress.mediaPath\): must be auto or whip/);
  const on = parse({ REELTIME_INGRESS_RTMP_PORT: '1935', REELTIME_INGRESS_SRT_PORTS: '9000-9019' });
  assert.equal(on.rtmpPort, 1935);
  assert.deepEqual(on.srtPorts, { first: 9000, last: 9019 });
  assert.deepEqual(parse({ REELTIME_INGRESS_SRT_PORTS: '9000' }).srtPorts, { first: 9000, last: 9000 });
  assert.throws(() => parse({ REELTIME_INGRESS_RTMP_PORT: '70000' }), /REELTIME_INGRESS_RTMP_PORT \(ingress.rtmpPort\): must be at most 65535/);
  assert.throws(() => parse({ REELTIME_INGRESS_SRT_PORTS: '9019-9000' }), /REELTIME_INGRESS_SRT_PORTS \(ingress.srtPorts\): must be ports from 1 to 65535, first ≤ last/);
  assert.throws(() => parse({ REELTIME_INGRESS_SRT_PORTS: 'many' }), /REELTIME_INGRESS_SRT_PORTS \(ingress.srtPorts\): must be a port or a range/);
  assert.throws(() => parse({ REELTIME_INGRESS_RTMP_URL: 'http://x/live' }), /REELTIME_INGRESS_RTMP_URL \(ingress.rtmpUrl\): must be an rtmp:\/\/ or rtmps:\/\/ URL/);
  assert.throws(() => parse({ REELTIME_INGRESS_RTMP_APP: 'a/b' }), /REELTIME_INGRESS_RTMP_APP \(ingress.rtmpApp\)/);
});
