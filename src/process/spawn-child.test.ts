import assert from 'node:assert/strict';
import { once } from 'node:events';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { isRunning, processInfo, type ProcessInfo } from './proc-table.ts';
import { childCommandLine, spawnChild } from './spawn-child.ts';
import { waitUntil } from '../testing/wait.ts';

const HELPER = fileURLToPath(new URL('./spawn-child.ts', import.meta.url));


test('a SIGKILLed parent takes its children with it', { skip: process.platform !== 'linux' && 'Linux only' }, async () => {
  // A Node parent that starts two long sleepers through the helper, prints their pids and idles.
  const code = `import { spawnChild } from ${JSON.stringify(HELPER)};
    const a = spawnChild('sleep', ['1000'], { stdio: 'ignore' });
    const b = spawnChild('sleep', ['1001'], { stdio: 'ignore' });
    process.stdout.write(JSON.stringify([a.pid, b.pid]) + '\\n');
    setInterval(() => {}, 1000);`;
  const parent = spawnChild(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(parent.stdout!, 'data')) as [Buffer];
  const pids = JSON.parse(line.toString()) as number[];
  let kids: ProcessInfo[] = [];
  await waitUntil(() => {
    kids = pids.map((p) => processInfo(p)).filter((p): p is ProcessInfo => p?.argv[0] === 'sleep');
    return kids.length === 2;
  }, { what: 'both sleepers exec’d' });
  for (const k of kids) assert.equal(k.ppid, parent.pid, 'the command replaced setpriv in the same process, a direct child');
  parent.kill('SIGKILL');
  await waitUntil(() => kids.every((k) => !isRunning(k)), { what: 'the sleepers to die' });
});

test('extra pipes reach the command through setpriv, and a missing command exits 127 naming it', async () => {
  const child = spawnChild(process.execPath, ['-e', "require('node:fs').writeSync(3, 'through fd 3')"], { stdio: ['ignore', 'ignore', 'ignore', 'pipe'] });
  const chunks: Buffer[] = [];
  (child.stdio[3] as NodeJS.ReadableStream).on('data', (c: Buffer) => chunks.push(c));
  const [code] = (await once(child, 'close')) as [number];
  assert.equal(code, 0);
  assert.equal(Buffer.concat(chunks).toString(), 'through fd 3');

  if (process.platform !== 'linux') return;
  const missing = spawnChild('reeltime-no-such-program', [], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  missing.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const [missingCode] = (await once(missing, 'close')) as [number];
  assert.equal(missingCode, 127);
  assert.match(stderr, /reeltime-no-such-program/);
});

test('refuses to start a child from a worker thread, whose exit would kill it', async () => {
  const w = new Worker(
    `const { parentPort } = require('node:worker_threads');
     (async () => {
       const { register } = await import('tsx/esm/api');
       register();
       const { spawnChild } = await import(${JSON.stringify(HELPER)});
       try { spawnChild('sleep', ['1']); parentPort.postMessage('spawned'); } catch (e) { parentPort.postMessage(e.message); }
     })();`,
    { eval: true },
  );
  const [message] = (await once(w, 'message')) as [string];
  await once(w, 'exit');
  assert.match(message, /main thread/);
});

test('on Linux the command runs under setpriv --pdeathsig KILL, argument list untouched', { skip: process.platform !== 'linux' && 'Linux only' }, () => {
  const [file, argv] = childCommandLine('ffmpeg', ['-i', 'a b', '--', '-x']);
  assert.match(file, /setpriv$/);
  assert.deepEqual(argv, ['--pdeathsig', 'KILL', '--', 'ffmpeg', '-i', 'a b', '--', '-x']);
});
