import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { ManualClock } from '../../clock/index.ts';
import { createLogger } from '../../log/index.ts';
import { startTestServer } from '../../testing/index.ts';
import { ChatTokenService } from './token-service.ts';

const APP_ID = '970CA35de60c44645bbae8a215061b33';
const CERT = '5CFd2fd1755d40ecb72977518be15d3b';

test('the app certificate never appears in token server answers or logs, whatever fails', async () => {
  let logged = '';
  const sink = new Writable({ write: (chunk, _enc, done) => ((logged += chunk.toString()), done()) });
  const log = createLogger('trace', sink);
  const other = await startTestServer({ env: { REELTIME_APP_ID: '0123456789abcdef0123456789abcdef' } });
  try {
    const bodies: string[] = [];
    for (const domain of ['127.0.0.1:1', other.url, '']) {
      const svc = new ChatTokenService(
        { port: 0, address: '127.0.0.1', appId: APP_ID, appCertificate: CERT, expireSecond: 60, appKey: 'reeltime#default', domain },
        () => domain,
        new ManualClock(Date.now()),
        log,
      );
      for (const name of ['alice', '', 'a b']) bodies.push((await svc.userToken(name)).body);
      bodies.push(svc.appToken().body);
    }
    assert.ok(logged.length > 0, 'failures were logged');
    for (const text of [logged, ...bodies]) assert.ok(!text.toLowerCase().includes(CERT.toLowerCase()));
  } finally {
    await other.close();
  }
});
