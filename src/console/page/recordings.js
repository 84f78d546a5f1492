// Recordings: every session, newest first, with filters and cursor pages (GET …/cloud_recording/sessions).
import { useEffect, useState } from 'preact/hooks';
import { ErrorBody, fmtTime, html, StateBadge } from './ui.js';

const REFRESH_MS = 3000;

export function Recordings({ api, go }) {
  const [filters, setFilters] = useState({ cname: '', status: '', mode: '' });
  const [cursors, setCursors] = useState([]); // cursors of the pages before the current one ('' = newest)
  const [page, setPage] = useState(null);
  const [error, setError] = useState(null);
  const cursor = cursors[cursors.length - 1] ?? '';
  useEffect(() => {
    let stopped = false;
    let timer;
    const load = async () => {
      const params = { limit: '20' };
      for (const [k, v] of Object.entries(filters)) if (v) params[k] = v;
      if (cursor) params.cursor = cursor;
      try {
        const r = await api.sessions(params);
        if (!stopped) {
          setPage(r);
          setError(null);
        }
      } catch (e) {
        if (!stopped) setError(e);
      }
      // The newest page follows new sessions; older pages stay still.
      if (!stopped && !cursor) timer = setTimeout(load, REFRESH_MS);
    };
    load();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [api, filters, cursor]);
  const set = (k) => (e) => {
    setCursors([]);
    setFilters({ ...filters, [k]: e.target.value });
  };
  return html`<div>
    <div class="row" style="margin-bottom:1rem"><h1 style="margin:0">Recordings</h1><span class="muted small">every session, live and ended</span></div>
    <div class="card row" id="filters">
      <label class="field">Channel<input name="cname" value=${filters.cname} onChange=${set('cname')} placeholder="any" /></label>
      <label class="field">State<select name="status" value=${filters.status} onChange=${set('status')}>
        <option value="">any</option><option>live</option><option>stopping</option><option>ended</option></select></label>
      <label class="field">Mode<select name="mode" value=${filters.mode} onChange=${set('mode')}>
        <option value="">any</option><option>individual</option><option>mix</option><option>web</option></select></label>
    </div>
    <${ErrorBody} error=${error} />
    <div class="card">
      ${page === null
        ? html`<p class="muted">Loading…</p>`
        : page.sessions.length === 0
          ? html`<p class="muted">No sessions${Object.values(filters).some(Boolean) ? ' match these filters' : ' yet: record a channel from Channels'}.</p>`
          : html`<table id="sessions">
              <thead><tr><th>Started</th><th>Channel</th><th class="hide-narrow">Recorder uid</th><th>Mode</th><th>State</th><th>Files</th><th class="hide-narrow">sid</th></tr></thead>
              <tbody>${page.sessions.map(
                (s) => html`<tr class="link" data-sid=${s.sid} onClick=${() => go(`#/recordings/${s.sid}`)}>
                  <td>${fmtTime(s.startedAt)}</td><td>${s.cname}</td><td class="hide-narrow">${s.uid}</td><td>${s.mode}</td>
                  <td><${StateBadge} state=${s.state} status=${s.status} /></td><td>${s.fileCount}</td>
                  <td class="hide-narrow"><code>${s.sid.slice(0, 10)}…</code></td></tr>`,
              )}</tbody></table>`}
      <div class="row" style="margin-top:.7rem">
        <button disabled=${cursors.length === 0} onClick=${() => setCursors([])}>Newest</button>
        <button disabled=${cursors.length === 0} onClick=${() => setCursors(cursors.slice(0, -1))}>← Newer</button>
        <button id="older" disabled=${!page?.nextCursor} onClick=${() => setCursors([...cursors, page.nextCursor])}>Older →</button>
      </div>
    </div>
  </div>`;
}
