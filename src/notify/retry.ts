/** What happens after a failed attempt: another try at `atMs`, or the event is given up and kept as failed. */
export type AfterFailure = { readonly kind: 'retry'; readonly atMs: number } | { readonly kind: 'give_up' };

/**
 * `attempts` is how many sends have been made, the failed one included. The first retry follows at once and later
 * ones wait longer (docs/notify.md, "Delivery rules"); `delaysMs` holds one delay per retry.
 */
export function afterFailure(attempts: number, delaysMs: readonly number[], nowMs: number): AfterFailure {
  const delay = delaysMs[attempts - 1];
  return delay === undefined ? { kind: 'give_up' } : { kind: 'retry', atMs: nowMs + delay };
}
