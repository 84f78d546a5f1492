// Shared view helpers: htm bound to preact, time and state formatting.
import { h } from 'preact';
import htm from 'htm';

export const html = htm.bind(h);

export const fmtTime = (ms) => (ms ? new Date(ms).toLocaleString(undefined, { hour12: false }) : '—');
export const fmtClock = (ms) => (ms ? new Date(ms).toLocaleTimeString(undefined, { hour12: false }) : '—');
export const fmtBytes = (n) => (n < 1000 ? `${n} B` : n < 1e6 ? `${(n / 1e3).toFixed(1)} kB` : n < 1e9 ? `${(n / 1e6).toFixed(1)} MB` : `${(n / 1e9).toFixed(2)} GB`);

/** query's serverResponse.status in words (docs/recording-api.md). */
export const STATUS_NAMES = {
  0: 'idle', 1: 'initializing', 2: 'starting', 3: 'partly started', 4: 'started', 5: 'recording', 6: 'stop requested',
  7: 'stopped', 8: 'exited', 20: 'exited abnormally',
};

export function StateBadge({ state, status }) {
  const cls = state === 'ended' ? (status === 20 ? 'bad' : 'idle') : status === 5 ? 'ok' : 'warn';
  const text = state === 'live' ? STATUS_NAMES[status] ?? `status ${status}` : state;
  return html`<span class=${`badge ${cls}`} data-state=${state} data-status=${status}>${text}</span>`;
}

export function DeliveryBadge({ delivery }) {
  const cls = { delivered: 'ok', retrying: 'warn', pending: 'warn', failed: 'bad', skipped: 'idle' }[delivery] ?? 'idle';
  return html`<span class=${`badge ${cls}`}>${delivery}</span>`;
}

/** An API error body, shown whole so the reason is never lost. */
export function ErrorBody({ error }) {
  if (!error) return null;
  return html`<pre class="error" role="alert">${error.status ? `HTTP ${error.status}\n` : ''}${
    typeof error.body === 'string' ? error.body : JSON.stringify(error.body ?? error.message, null, 2)
  }</pre>`;
}
