import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { FFMPEG_BIN } from '../../media/index.ts';
import { hexToYuv, i420PixelAt } from '../../media/mix/index.ts';
import { runChild } from '../../process/index.ts';
import { boundedSize, ImageLoader } from './images.ts';
import { mixLayoutSettings } from '../../recording/index.ts';

test('boundedSize: scaled down into the canvas with the aspect kept, even sizes, never up', () => {
  assert.deepEqual(boundedSize(1280, 720, { width: 640, height: 360 }), { width: 640, height: 360 });
  assert.deepEqual(boundedSize(1000, 1000, { width: 640, height: 360 }), { width: 360, height: 360 });
  assert.deepEqual(boundedSize(101, 51, { width: 640, height: 360 }), { width: 102, height: 52 });
});

test('background images: fetched once over loopback, PNG, JPEG and BMP decoded, over 6 MB refused, a bad or unreachable URL warns and is absent', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mix-images-'));
  const png = join(dir, 'yellow.png');
  const jpg = join(dir, 'blue.jpg');
  const bmp = join(dir, 'red.bmp');
  await runChild(FFMPEG_BIN, ['-v', 'error', '-f', 'lavfi', '-i', 'color=c=red:s=48x32', '-frames:v', '1', bmp]);
  await runChild(FFMPEG_BIN, ['-v', 'error', '-f', 'lavfi', '-i', 'color=c=yellow:s=800x400', '-frames:v', '1', png]);
  await runChild(FFMPEG_BIN, ['-v', 'error', '-f', 'lavfi', '-i', 'color=c=blue:s=64x64', '-frames:v', '1', jpg]);
  const hits = new Map<string, number>();
  const server = createServer((req, res) => {
    hits.set(req.url!, (hits.get(req.url!) ?? 0) + 1);
    if (req.url === '/yellow.png') res.writeHead(200, { 'content-type': 'image/png' }).end(readFileSync(png));
    else if (req.url === '/blue.jpg') res.writeHead(200, { 'content-type': 'image/jpeg' }).end(readFileSync(jpg));
    else if (req.url === '/red.bmp') res.writeHead(200, { 'content-type': 'image/bmp' }).end(readFileSync(bmp));
    else if (req.url === '/big.jpg') res.writeHead(200, { 'content-type': 'image/jpeg' }).end(Buffer.alloc(6 * 1024 * 1024 + 1));
    else if (req.url === '/big-chunked.jpg') {
      // No length announced: the loader must stop reading once past the limit.
      res.writeHead(200, { 'content-type': 'image/jpeg' });
      for (let i = 0; i < 7; i++) res.write(Buffer.alloc(1024 * 1024));
      res.end();
    } else if (req.url === '/text.png') res.writeHead(200).end('not a picture');
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const failures: string[] = [];
  try {
    const loader = new ImageLoader({
      policy: { allowPrivate: true },
      workDir: join(dir, 'work'),
      canvas: { width: 640, height: 360 },
      onFailure: (url) => failures.push(new URL(url).pathname),
    });
    const settings = mixLayoutSettings({
      backgroundImage: `${base}/yellow.png`,
      defaultUserBackgroundImage: `${base}/missing.png`,
      backgroundConfig: [
        { uid: '1', image_url: `${base}/blue.jpg`, render_mode: 1 },
        { uid: '2', image_url: `${base}/text.png` },
        { uid: '3', image_url: `${base}/yellow.png` },
        { uid: '4', image_url: `${base}/red.bmp` },
        { uid: '5', image_url: `${base}/big.jpg` },
        { uid: '6', image_url: `${base}/big-chunked.jpg` },
      ],
    });
    const images = await loader.imagesOf(settings);
    assert.deepEqual([images.canvas?.width, images.canvas?.height], [640, 320]);
    const near = (a: { y: number; u: number; v: number }, b: { y: number; u: number; v: number }) =>
      Math.abs(a.y - b.y) < 12 && Math.abs(a.u - b.u) < 12 && Math.abs(a.v - b.v) < 12;
    assert.ok(near(i420PixelAt(images.canvas!, 320, 160), hexToYuv('#FFFF00')), 'the PNG is yellow');
    assert.ok(near(i420PixelAt(images.users.get('1')!.frame, 32, 32), hexToYuv('#0000FF')), 'the JPEG is blue');
    assert.equal(images.users.get('1')!.renderMode, 'fit');
    assert.equal(images.defaultUser, null);
    assert.ok(near(i420PixelAt(images.users.get('4')!.frame, 24, 16), hexToYuv('#FF0000')), 'the BMP is red');
    assert.deepEqual([...images.users.keys()].sort(), ['1', '3', '4']);
    assert.deepEqual(failures.sort(), ['/big-chunked.jpg', '/big.jpg', '/missing.png', '/text.png']);
    // A later layout naming the same URLs fetches nothing again.
    await loader.imagesOf(settings);
    assert.equal(hits.get('/yellow.png'), 1);
    assert.equal(hits.get('/missing.png'), 1);
    // A refused target (private addresses not allowed) is a failure like any other.
    const strict = new ImageLoader({ policy: { allowPrivate: false }, workDir: join(dir, 'work2'), canvas: { width: 64, height: 64 }, onFailure: (url) => failures.push(url) });
    assert.equal(await strict.load(`${base}/blue.jpg`), null);
    assert.equal(hits.get('/blue.jpg'), 1);
  } finally {
    await new Promise((r) => server.close(r));
    rmSync(dir, { recursive: true, force: true });
  }
});
