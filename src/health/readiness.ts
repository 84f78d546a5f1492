/** One dependency a process needs to serve; `probe` throws (or returns a reason) when it is not usable. */
export interface ReadinessCheck {
  /** Stable name in the /readyz body: `database`, `redis`, `storage`. */
  readonly name: string;
  /** Resolves undefined when usable, or a short fixed reason; never an error text (it may carry a URL or secret). */
  probe(): Promise<string | undefined>;
}

export type CheckOutcome = 'ok' | string;

export interface Readiness {
  readonly ready: boolean;
  /** Names of the failing checks, in check order. */
  readonly failing: readonly string[];
  readonly checks: Readonly<Record<string, CheckOutcome>>;
}

/** Runs every check at once, each bounded by `timeoutMs`; a check that throws is reported as `failed`. */
export async function checkReadiness(
  checks: readonly ReadinessCheck[],
  timeoutMs: number,
  onError: (name: string, err: unknown) => void = () => undefined,
): Promise<Readiness> {
  const outcomes = await Promise.all(
    checks.map(async (c): Promise<CheckOutcome> => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<string>((resolve) => (timer = setTimeout(() => resolve(`no answer within ${timeoutMs} ms`), timeoutMs)));
      try {
        return (await Promise.race([c.probe(), late])) ?? 'ok';
      } catch (e) {
        onError(c.name, e);
        return 'failed';
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  const entries = checks.map((c, i) => [c.name, outcomes[i]!] as const);
  const failing = entries.filter(([, o]) => o !== 'ok').map(([n]) => n);
  return { ready: failing.length === 0, failing, checks: Object.fromEntries(entries) };
}
