// The SFU under test, in its own process so its CPU is measured alone. Protocol on stdio:
// prints {"url"} once ready; answers each "cpu" line with process.cpuUsage() as JSON; exits on "exit".
import { createInterface } from 'node:readline';
import { startTestServer } from '../../src/testing/index.ts';

const s = await startTestServer({ values: { channel: { idleTimeoutMs: 30000 } }, roles: ['channel'] });
process.stdout.write(JSON.stringify({ url: s.url }) + '\n');
for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'cpu') process.stdout.write(JSON.stringify({ cpu: process.cpuUsage(), t: performance.now() }) + '\n');
  if (line === 'exit') break;
}
await s.close();
process.exit(0);
