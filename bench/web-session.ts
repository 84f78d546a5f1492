/**
 * Web session benchmark through the HTTP API with the real web recorder: from the `start` call to the first slice
 * in the bucket (default 15 s slices) and to `query` status 5, then how long a synchronous `stop` takes (last
 * segment flushed, playlist ended, uploads done). One 1280×720@15 session of an animated page with a tone.
 * CPU of the capture itself is `bench:web-capture`.
 *
 *   npm run bench:web-session                (BENCH_RUNS=1)
 */
import { startPageServer } from '../src/media/capture/testing/page-server.ts';
import { startHarness, storageConfig } from '../src/recorders/individual/testing/harness.ts';
import { bucketKeys, waitFor } from '../src/recorders/individual/testing/media-checks.ts';
import { webClient, webService } from '../src/recorders/web/testing/web-client.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 1);

async function main(): Promise<void> {
  const pages = await startPageServer({ page: { colour: '#336699', toneHz: 440 } });
  const h = await startHarness();
  try {
    const web = webClient(h.api);
    for (let run = 0; run < RUNS; run++) {
      const t0 = performance.now();
      const { resourceId, sid } = await web.start(`bench-web-${run}`, '7001', {
        storageConfig: storageConfig(),
        extensionServiceConfig: {
          extensionServices: [webService(`${pages.origin}/page`, { videoWidth: 1280, videoHeight: 720, videoFps: 15 })],
        },
      });
      const startAnswered = performance.now() - t0;
      await waitFor(() => bucketKeys(h.bucketDir).some((k) => k.includes(sid) && k.endsWith('.ts')), 120_000, 'first slice');
      const firstSlice = performance.now() - t0;
      await waitFor(async () => {
        const q = await h.api('GET', web.path(resourceId, sid, 'query'));
        return (q.body.serverResponse as { status?: number } | undefined)?.status === 5;
      }, 30_000, 'status 5');
      const status5 = performance.now() - t0;
      const s0 = performance.now();
      const stop = await h.api('POST', web.path(resourceId, sid, 'stop'), { cname: `bench-web-${run}`, uid: '7001', clientRequest: {} });
      const stopMs = performance.now() - s0;
      if (stop.status !== 200) throw new Error(`stop: ${stop.status}`);
      console.log(
        `run ${run + 1}: start answered ${startAnswered.toFixed(0)} ms, first slice in the bucket ${(firstSlice / 1000).toFixed(1)} s, ` +
          `status 5 ${(status5 / 1000).toFixed(1)} s, synchronous stop ${stopMs.toFixed(0)} ms`,
      );
    }
  } finally {
    await h.close();
    await pages.close();
  }
}

await main();
