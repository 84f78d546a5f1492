import type { Clock } from '../clock/index.ts';
import { guardedFetch, OutboundUrlError, type OutboundPolicy } from '../net/index.ts';

export interface AttemptResult {
  /** The receiver answered 200 in time. */
  readonly ok: boolean;
  readonly httpStatus: number | null;
  readonly error: string | null;
  readonly durationMs: number;
  /** The attempt was cut short by shutdown: it does not count, the event is sent again after restart. */
  readonly interrupted: boolean;
}

export interface SendOptions {
  readonly url: string;
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly policy: OutboundPolicy;
  readonly clock: Clock;
  readonly timeoutMs: number;
  /** Aborting it ends the attempt as interrupted (module close). */
  readonly controller: AbortController;
}

/** One POST of a signed envelope. Only a 200 within the timeout counts as delivered (docs/notify.md, "Delivery rules"). */
export async function sendOnce(o: SendOptions): Promise<AttemptResult> {
  const started = o.clock.now();
  let timedOut = false;
  const timer = o.clock.setTimeout(() => {
    timedOut = true;
    o.controller.abort();
  }, o.timeoutMs);
  const done = (r: Omit<AttemptResult, 'durationMs' | 'interrupted'>): AttemptResult => ({
    ...r,
    durationMs: Math.max(0, o.clock.now() - started),
    interrupted: o.controller.signal.aborted && !timedOut,
  });
  try {
    const res = await guardedFetch(
      o.url,
      { method: 'POST', headers: o.headers, body: o.body, signal: o.controller.signal },
      o.policy,
    );
    // The body is not inspected (notes: receivers answer JSON or plain "Ok"); only the status decides.
    await res.body?.cancel().catch(() => {});
    if (timedOut) return done({ ok: false, httpStatus: null, error: `no answer within ${o.timeoutMs} ms` });
    return done({
      ok: res.status === 200,
      httpStatus: res.status,
      error: res.status === 200 ? null : `webhook answered HTTP ${res.status} (200 expected)`,
    });
  } catch (e) {
    if (timedOut) return done({ ok: false, httpStatus: null, error: `no answer within ${o.timeoutMs} ms` });
    const reason = e instanceof OutboundUrlError ? `refused: ${e.message}` : describe(e);
    return done({ ok: false, httpStatus: null, error: reason });
  } finally {
    o.clock.clearTimeout(timer);
  }
}

function describe(e: unknown): string {
  const err = e as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = err.code ?? err.cause?.code;
  const msg = err.message ?? String(e);
  return code && !msg.includes(code) ? `${code}: ${msg}` : msg;
}
