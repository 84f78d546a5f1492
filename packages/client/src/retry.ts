/**
 * When the client asks again (docs/client.md, "Retries"): pure, so it tests without a server. The delays are the
 * hosted service's integration advice: a 5xx on start is retried with the same body after 3, 6 and 9 s; code 65
 * ("request not completed") on any call after 3 and 6 s; a 404 on query (the session may be moving to another
 * server) after 5, 10 and 15 s.
 */
export interface RetryPolicy {
  readonly startServerErrorMs: readonly number[];
  readonly notCompletedMs: readonly number[];
  readonly queryNotFoundMs: readonly number[];
}

export const DEFAULT_RETRY: RetryPolicy = Object.freeze({
  startServerErrorMs: Object.freeze([3000, 6000, 9000]),
  notCompletedMs: Object.freeze([3000, 6000]),
  queryNotFoundMs: Object.freeze([5000, 10000, 15000]),
});

export type Operation =
  | 'acquire'
  | 'start'
  | 'query'
  | 'update'
  | 'updateLayout'
  | 'stop'
  | 'getNcsIp'
  | 'listSessions'
  | 'getSession'
  | 'createIngress'
  | 'getIngress'
  | 'listIngresses'
  | 'deleteIngress';

/** The wait before attempt `attempt + 1` (attempt counts from 0), or undefined: do not retry. */
export function retryDelay(policy: RetryPolicy, op: Operation, status: number, code: number | undefined, attempt: number): number | undefined {
  let delays: readonly number[] = [];
  if (code === 65) delays = policy.notCompletedMs;
  else if (op === 'start' && status >= 500) delays = policy.startServerErrorMs;
  else if (op === 'query' && status === 404 && code === 404) delays = policy.queryNotFoundMs;
  return delays[attempt];
}
