import type { Clock } from '../clock/index.ts';

/** Resolves with the promise's value, or with undefined once `ms` passed on the injected clock. */
export function within<T>(clock: Clock, p: Promise<T>, ms: number): Promise<T | undefined> {
  return new Promise<T | undefined>((resolve, reject) => {
    const timer = clock.setTimeout(() => resolve(undefined), ms);
    p.then(
      (v) => {
        clock.clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clock.clearTimeout(timer);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}
