// Loaded (--import) into every fast-lane test file's process by scripts/test.mjs: the fast lane is pure and
// in-process tests, so starting a child process (ffmpeg, Chromium, Xvfb, PulseAudio, another reeltime, a
// shell tool) there is a mistake in the lane list, and this makes it fail loudly instead of slowly.
// Only esbuild (tsx's compiler) may start.
import { createRequire, syncBuiltinESMExports } from 'node:module';

const require = createRequire(import.meta.url);
const childProcess = require('node:child_process');
const testFile = process.env.REELTIME_TEST_FILE ?? 'this test file';

for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork']) {
  const original = childProcess[name];
  childProcess[name] = function guardedChildProcess(command, ...rest) {
    if (/esbuild/.test(String(command))) return original.call(this, command, ...rest);
    const args = Array.isArray(rest[0]) ? rest[0].slice(0, 5).join(' ') : '';
    // What the test left open (servers, sockets) would keep the file running until its timeout: end it soon.
    setTimeout(() => process.exit(1), 3000).unref();
    throw new Error(
      `fast lane: ${testFile} starts a child process (child_process.${name}: ${String(command)} ${args}); ` +
        'list the file in scripts/test-lanes.mjs (HEAVY) or keep the test in-process',
    );
  };
}
// `import { spawn } from 'node:child_process'` binds to the builtin's ESM exports: bring them in line.
syncBuiltinESMExports();
