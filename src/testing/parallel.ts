/**
 * `fn` over `items` with at most `limit` calls pending at once, results in the items' order. Tests measure what a
 * recording holds with one ffprobe or ffmpeg per slice: one after another they left a core idle for tens of seconds
 * of a test that measures nothing in real time any more.
 */
export async function mapBounded<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}
