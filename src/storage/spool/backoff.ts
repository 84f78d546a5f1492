/**
 * Delay before the next attempt after `attempts` failures: doubling from `baseMs`, capped at `maxMs`.
 * Wrong settings will not heal by themselves, so config errors wait the maximum straight away.
 */
export function retryDelay(attempts: number, baseMs: number, maxMs: number, configError: boolean): number {
  if (configError) return maxMs;
  const exp = Math.min(Math.max(attempts - 1, 0), 30);
  return Math.min(baseMs * 2 ** exp, maxMs);
}
