import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { FfmpegProcess } from '../../ffmpeg.ts';
import { spawnChild } from '../../../process/index.ts';
import { FrameSocketReader, frameSocketPath, sweepDeadFrameSocketDirs } from './frame-socket.ts';

/** A work dir too long for a socket address: the socket goes to a short directory under the temp dir. */
const LONG = join(tmpdir(), 'x'.repeat(120));

test('a socket in a short directory is read, and its name and directory are gone once the reader is connected', async () => {
  const path = frameSocketPath(LONG, 'video-a-1');
  const dir = dirname(path);
  assert.equal(dirname(dir), tmpdir());
  assert.match(dir, new RegExp(`rtmix-${process.pid}-`));
  const width = 32;
  const height = 18;
  const bytes = (width * height * 3) / 2;
  const ffmpeg = new FfmpegProcess([
    '-loglevel', 'error', '-f', 'lavfi', '-i', `testsrc=s=${width}x${height}:r=15`, '-frames:v', '5',
    '-pix_fmt', 'yuv420p', '-f', 'rawvideo', '-listen', '1', `unix:${path}`,
  ]);
  const frames: Uint8Array[] = [];
  let dirAtFirstFrame: boolean | undefined;
  await new Promise<void>((resolve) => {
    const reader = new FrameSocketReader({
      path,
      frameBytes: bytes,
      nextBuffer: () => new Uint8Array(bytes),
      alive: () => ffmpeg.running,
      onFrame: (f) => {
        dirAtFirstFrame ??= existsSync(dir);
        frames.push(f);
        if (frames.length === 5) resolve();
      },
    });
    void ffmpeg.exited.then(() => {
      reader.close();
      resolve();
    });
  });
  await ffmpeg.exited;
  assert.equal(frames.length, 5);
  assert.equal(dirAtFirstFrame, false, 'the directory is removed once connected');
  assert.equal(existsSync(dir), false);
});

test('the short directory of a process killed with SIGKILL is swept away by the next one', async () => {
  const script = `
    import { frameSocketPath } from ${JSON.stringify(new URL('./frame-socket.ts', import.meta.url).pathname)};
    console.log(frameSocketPath(${JSON.stringify(LONG)}, 'video-b-1'));
    setInterval(() => undefined, 1000);
  `;
  const child = spawnChild(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const path = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out.trim());
    });
    child.once('exit', () => reject(new Error('the child exited early')));
  });
  const dir = dirname(path);
  assert.ok(existsSync(dir), 'the child made its directory');
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  assert.ok(existsSync(dir), 'SIGKILL leaves it');
  // Another live process's directory is kept.
  const mine = mkdtempSync(join(tmpdir(), `rtmix-${process.pid}-`));
  sweepDeadFrameSocketDirs();
  assert.equal(existsSync(dir), false, 'swept');
  assert.ok(existsSync(mine));
  rmSync(mine, { recursive: true, force: true });
});
