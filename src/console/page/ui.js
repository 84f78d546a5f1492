// Shared view helpers: htm bound to preact, time and state formatting, polling and form-submit hooks.
import { h } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import htm from 'htm';
import { RECORDING_STATUS as S } from './vocabulary.mjs';

export const html = htm.bind(h);

export const fmtTime = (ms) => (ms ? new Date(ms).toLocaleString(undefined, { hour12: false }) : '—');
export const fmtClock = (ms) => (ms ? new Date(ms).toLocaleTimeString(undefined, { hour12: false }) : '—');
export const fmtBytes = (n) => (n < 1000 ? `${n} B` : n < 1e6 ? `${(n / 1e3).toFixed(1)} kB` : n < 1e9 ? `${(n / 1e6).toFixed(1)} MB` : `${(n / 1e9).toFixed(2)} GB`);

/** query's serverResponse.status in words (docs/recording-api.md); the numbers are the server's catalogue. */
export const STATUS_NAMES = {
  [S.notStarted]: 'idle', [S.initialized]: 'initializing', [S.recorderStarting]: 'starting', [S.uploaderReady]: 'partly started',
  [S.recorderReady]: 'started', [S.firstFileUploaded]: 'recording', [S.recordingStopped]: 'stop requested',
  [S.componentsStopped]: 'stopped', [S.readyToExit]: 'exited', [S.exitedAbnormally]: 'exited abnormally',
};

export function StateBadge({ state, status }) {
  const cls = state === 'ended' ? (status === S.exitedAbnormally ? 'bad' : 'idle') : status === S.firstFileUploaded ? 'ok' : 'warn';
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

/**
 * `fetch()` now and again `intervalMs` after each answer, while the view is shown; a new `deps` (or `reload()`)
 * starts over. Returns the last answer (null before the first), the last error (null after a success) and `reload`.
 */
export function usePolled(fetch, intervalMs, deps) {
  const [data, setData] = useState(null);
  const [error, setError] = useState(null);
  const [round, setRound] = useState(0);
  useEffect(() => {
    let stopped = false;
    let timer;
    const load = async () => {
      try {
        const r = await fetch();
        if (!stopped) {
          setData(r);
          setError(null);
        }
      } catch (e) {
        if (!stopped) setError(e);
      }
      if (!stopped) timer = setTimeout(load, intervalMs);
    };
    load();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [...deps, round]);
  return [data, error, () => setRound((n) => n + 1)];
}

/**
 * A list's delete action: `remove(item)` deletes it through `del` and reloads the list. Returns `remove` and the
 * last attempt's error (null after a success).
 */
export function useDelete(del, reload) {
  const [error, setError] = useState(null);
  const remove = async (item) => {
    try {
      await del(item);
      setError(null);
      reload();
    } catch (e) {
      setError(e);
    }
  };
  return [remove, error];
}

/** A form's submit: `run(action)` marks it busy, keeps the error (null on success) and ends busy either way. */
export function useSubmit() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  const run = async (action) => {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run };
}
