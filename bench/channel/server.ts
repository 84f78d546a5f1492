// The SFU under test, in its own process so its CPU is measured alone. Protocol on stdio:
// prints {"url"} once ready; answers each "cpu" line with process.cpuUsage() as JSON; "profile-start" and
// "profile-stop <file>" record a V8 CPU profile of just that span (answered with {"ok":true}); exits on "exit".
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { createInterface } from 'node:readline';
import { startTestServer } from '../../src/testing/index.ts';

const s = await startTestServer({ values: { channel: { idleTimeoutMs: 30000 } }, roles: ['channel'] });
const inspector = new Session();
process.stdout.write(JSON.stringify({ url: s.url }) + '\n');
for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'cpu') process.stdout.write(JSON.stringify({ cpu: process.cpuUsage(), t: performance.now() }) + '\n');
  if (line === 'profile-start') {
    inspector.connect();
    await inspector.post('Profiler.enable');
    await inspector.post('Profiler.start');
    process.stdout.write('{"ok":true}\n');
  }
  if (line.startsWith('profile-stop ')) {
    const { profile } = await inspector.post('Profiler.stop');
    writeFileSync(line.slice('profile-stop '.length), JSON.stringify(profile));
    inspector.disconnect();
    process.stdout.write('{"ok":true}\n');
  }
  if (line === 'exit') break;
}
await s.close();
process.exit(0);
