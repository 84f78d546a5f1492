// One session (GET …/sessions/{sid}): status history, actions while live, playback, files, webhook timeline, the request.
import { useEffect, useState } from 'preact/hooks';
import { holdBody, LAYOUTS, updateTemplate } from './bodies.js';
import { LayoutPreview, mixUsers } from './layout-preview.js';
import { LiveView } from './live.js';
import { Players } from './players.js';
import { DeliveryBadge, ErrorBody, fmtBytes, fmtClock, fmtTime, html, StateBadge, STATUS_NAMES } from './ui.js';

const REFRESH_MS = 2000;

function Actions({ api, s, reload }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  const [answer, setAnswer] = useState(null);
  const [update, setUpdate] = useState(() => JSON.stringify(updateTemplate(s), null, 2));
  const canvas = s.clientRequest?.recordingConfig?.transcodingConfig ?? {};
  const [layout, setLayout] = useState(canvas.mixedVideoLayout ?? 1);
  // The layout picker previews the geometry for the users in the channel now (mix only).
  const [users, setUsers] = useState([]);
  useEffect(() => {
    if (s.mode !== 'mix' || s.state !== 'live') return;
    let gone = false;
    api
      .channels()
      .then((r) => !gone && setUsers(mixUsers(r.channels.find((c) => c.cname === s.cname)?.participants)))
      .catch(() => undefined);
    return () => (gone = true);
  }, [api, s.cname, s.mode, s.state]);
  const id = { cname: s.cname, uid: s.uid };
  const run = async (what) => {
    setBusy(true);
    setError(null);
    try {
      setAnswer(await what());
      reload();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  if (s.state !== 'live') return null;
  return html`<section class="card" id="actions">
    <h2>Control</h2>
    <div class="row">
      <button class="danger" id="stop" disabled=${busy} onClick=${() => run(() => api.stop(s.resourceId, s.sid, s.mode, { ...id, clientRequest: {} }))}>Stop</button>
      <button id="hold" disabled=${busy} onClick=${() => run(() => api.update(s.resourceId, s.sid, s.mode, { ...id, clientRequest: holdBody(s.mode, !s.onhold) }))}>${
        s.onhold ? 'Resume' : 'Pause'
      }</button>
    </div>
    ${s.mode === 'mix'
      ? html`<div class="row" style="margin-top:.6rem" id="layout">
          <label class="field">Layout<select value=${layout} onChange=${(e) => setLayout(Number(e.target.value))}>${LAYOUTS.map((l) => html`<option value=${l.value}>${l.name}</option>`)}</select></label>
          <${LayoutPreview} layout=${layout} users=${users} width=${canvas.width} height=${canvas.height} />
          <span class="muted small">${LAYOUTS.find((l) => l.value === layout)?.hint}</span>
          <button disabled=${busy} onClick=${() => run(() => api.updateLayout(s.resourceId, s.sid, s.mode, { ...id, clientRequest: { mixedVideoLayout: layout } }))}>Update layout</button>
        </div>`
      : null}
    <details style="margin-top:.6rem"><summary class="small">update (${s.mode === 'web' ? 'onhold' : 'subscriptions, onhold'}): any body</summary>
      <textarea value=${update} onInput=${(e) => setUpdate(e.target.value)}></textarea>
      <button disabled=${busy} onClick=${() => run(() => api.update(s.resourceId, s.sid, s.mode, { ...id, clientRequest: JSON.parse(update) }))}>Send update</button>
    </details>
    <${ErrorBody} error=${error} />
    ${answer ? html`<pre class="small">${JSON.stringify(answer, null, 2)}</pre>` : null}
  </section>`;
}

function Timeline({ webhooks }) {
  if (webhooks.length === 0) return html`<p class="muted small">No events yet.</p>`;
  return html`<ol class="timeline" id="timeline">${webhooks.map(
    (e) => html`<li data-event=${e.eventType}>
      <div class="head"><span><b>${e.msgName}</b> <span class="muted small">event ${e.eventType}, service ${e.serviceType} · #${e.sequence}</span></span>
        <${DeliveryBadge} delivery=${e.delivery} /></div>
      <div class="muted small">${fmtClock(e.createdAt)}${e.attempts.length ? ` · ${e.attempts.length} attempt${e.attempts.length > 1 ? 's' : ''}` : ''}${
        e.attempts.length ? ` (last: ${e.attempts[e.attempts.length - 1].httpStatus ?? e.attempts[e.attempts.length - 1].error})` : ''
      }${e.nextAttemptAt && e.delivery !== 'delivered' ? ` · next at ${fmtClock(e.nextAttemptAt)}` : ''}${e.lastError && e.delivery !== 'delivered' ? ` · ${e.lastError}` : ''}</div>
      ${e.details && Object.keys(e.details).length > 1 ? html`<details><summary class="small muted">details</summary><pre>${JSON.stringify(e.details, null, 2)}</pre></details>` : null}
    </li>`,
  )}</ol>`;
}

/**
 * What the session recorded so far, and while it records (individual and mix), the channel itself in real time:
 * "Live" switches to a WHEP view of every publisher, "Recording" back to the players.
 */
function Playback({ api, s }) {
  const [live, setLive] = useState(false);
  const canLive = s.state === 'live' && s.mode !== 'web';
  const showLive = live && canLive;
  return html`<section class="card" id="playback" data-view=${showLive ? 'live' : 'recording'}>
    <div class="row">
      <h2 style="margin:0">Playback</h2>
      <span class="spacer"></span>
      ${canLive
        ? html`<div class="seg" id="view">
            <button class=${showLive ? '' : 'on'} onClick=${() => setLive(false)}>Recording</button>
            <button class=${showLive ? 'on' : ''} onClick=${() => setLive(true)}>Live</button>
          </div>`
        : null}
    </div>
    ${showLive ? html`<${LiveView} api=${api} cname=${s.cname} />` : html`<${Players} files=${s.files} mode=${s.mode} />`}
  </section>`;
}

export function Session({ api, sid, go }) {
  const [s, setS] = useState(null);
  const [error, setError] = useState(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let stopped = false;
    let timer;
    const load = async () => {
      try {
        const d = await api.session(sid);
        if (stopped) return;
        setS(d);
        setError(null);
        // An ended session still changes while its last uploads wait (its file list, the spool's count).
        const settled = d.state === 'ended' && d.uploadingStatus === 'uploaded' && !d.uploads.pendingFiles;
        if (!settled) timer = setTimeout(load, REFRESH_MS);
      } catch (e) {
        if (!stopped) setError(e);
      }
    };
    load();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [api, sid, tick]);
  if (error && !s) return html`<div><a href="#/recordings">← Recordings</a><${ErrorBody} error=${error} /></div>`;
  if (!s) return html`<p class="muted">Loading…</p>`;
  return html`<div id="session" data-state=${s.state} data-status=${s.status}>
    <div class="row" style="margin-bottom:1rem">
      <a href="#/recordings" onClick=${(e) => (e.preventDefault(), go('#/recordings'))}>← Recordings</a>
      <h1 style="margin:0">${s.cname} <span class="muted small">${s.mode}</span></h1>
      <${StateBadge} state=${s.state} status=${s.status} />
      <span class="spacer"></span>
      <code class="small hide-narrow">sid ${s.sid}</code>
    </div>
    <section class="card">
      <h2>Status</h2>
      <ol class="steps" id="status-history">${s.statusHistory.map(
        (h) => html`<li data-status=${h.status}><b>${STATUS_NAMES[h.status] ?? `status ${h.status}`}</b><span class="muted">${fmtClock(h.at)}</span></li>`,
      )}</ol>
      <p class="small muted" id="uploads">${s.uploads.files} object${s.uploads.files === 1 ? '' : 's'} in the bucket, ${fmtBytes(s.uploads.bytes)}${
        s.uploads.pendingFiles ? ` · ${s.uploads.pendingFiles} waiting in the spool (${fmtBytes(s.uploads.pendingBytes)})` : ''
      }</p>
      <p class="small muted">Started ${fmtTime(s.startedAt)} · recorder uid ${s.uid}${s.endedAt ? ` · ended ${fmtTime(s.endedAt)} (${s.endReason}, uploads ${s.uploadingStatus})` : ''}${
        s.onhold ? ' · on hold' : ''
      }</p>
    </section>
    <${Actions} api=${api} s=${s} reload=${() => setTick(tick + 1)} />
    <${Playback} api=${api} s=${s} />
    <div class="grid">
      <section class="card" id="files">
        <h2>Files</h2>
        ${s.files.length === 0
          ? html`<p class="muted small">No files yet.</p>`
          : html`<div class="scroll-x"><table><thead><tr><th>File</th><th>uid</th><th>Track</th></tr></thead><tbody>${s.files.map(
              (f) => html`<tr><td>${f.url ? html`<a href=${f.url} download>${f.fileName.split('/').pop()}</a>` : f.fileName}</td><td>${f.uid}</td><td>${f.trackType}</td></tr>`,
            )}</tbody></table></div>`}
        <p class="muted small">Bucket <code>${s.bucket}</code></p>
      </section>
      <section class="card" id="events">
        <h2>Webhook events</h2>
        <${Timeline} webhooks=${s.webhooks} />
      </section>
    </div>
    <section class="card">
      <details><summary>Start request (secrets redacted)</summary><pre id="request">${JSON.stringify(s.clientRequest, null, 2)}</pre></details>
    </section>
  </div>`;
}
