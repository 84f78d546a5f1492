// Recording rules (reeltime's extension, docs/recording-rules.md): "record each channel matching this pattern when
// it gets its first publisher". The app's rules, the latest recording each made of each channel (a link to its
// session), a form that builds the rule's start request as the record form does, and delete.
import { useState } from 'preact/hooks';
import { defaultForm, startBody } from './bodies.js';
import { ErrorBody, fmtTime, html, useDelete, usePolled, useSubmit } from './ui.js';

const POLL_MS = 3000;

function RuleCard({ rule, go, onDelete }) {
  return html`<section class="card rule" data-rule=${rule.ruleId} data-cname=${rule.cname}>
    <div class="row">
      <span class="badge">${rule.mode}</span>
      <h2 style="margin:0"><code>${rule.cname}</code></h2>
      <span class="muted small">since ${fmtTime(rule.createdAt)}</span>
      <span class="spacer"></span>
      <button class="danger" onClick=${() => onDelete(rule)}>Delete</button>
    </div>
    ${(rule.recordings ?? []).length === 0
      ? html`<p class="small muted">No recording yet: it starts when a matching channel gets its first publisher.</p>`
      : html`<table class="small" style="margin-top:.5rem"><thead><tr><th>Channel</th><th>State</th><th>Recorder uid</th><th>Updated</th><th>sid</th></tr></thead>
          <tbody>${rule.recordings.map(
            (r) => html`<tr class=${r.sid ? 'link' : ''} data-recording=${r.cname} onClick=${() => r.sid && go(`#/recordings/${r.sid}`)}>
              <td>${r.cname}</td><td><span class="badge" data-role="state">${r.state}</span>${r.error ? html` <span class="small" style="color:var(--bad)">${r.error}</span>` : null}</td>
              <td>${r.uid ?? '—'}</td><td>${fmtTime(r.updatedAt)}</td><td>${r.sid ? html`<code>${r.sid.slice(0, 10)}…</code>` : '—'}</td></tr>`,
          )}</tbody></table>`}
  </section>`;
}

function CreateForm({ api, onCreated }) {
  const [f, setF] = useState(() => ({ ...defaultForm(null), cname: '', avFileType: 'hls+mp4' }));
  const { busy, error, run } = useSubmit();
  const set = (k) => (e) => setF({ ...f, [k]: e.target.value });
  const submit = (e) => {
    e.preventDefault();
    // The rule's start request is the record form's, without the token: each recording gets its own.
    const { clientRequest } = startBody({ ...f, token: '' });
    return run(async () => onCreated(await api.createRule({ cname: f.cname, mode: f.mode, clientRequest })));
  };
  return html`<form class="card" id="new-rule" onSubmit=${submit}>
    <div class="row">
      <label class="field">Channels (* matches any run of characters)<input name="cname" value=${f.cname} onInput=${set('cname')} required placeholder="stage-*" /></label>
      <label class="field">Mode<select name="mode" value=${f.mode} onChange=${set('mode')}><option>individual</option><option>mix</option><option>web</option></select></label>
      ${f.mode === 'web' ? html`<label class="field" style="flex:1">Page URL<input name="url" value=${f.url} onInput=${set('url')} required /></label>` : null}
      ${f.mode === 'mix' ? html`<label class="field">Files<select name="avFileType" value=${f.avFileType} onChange=${set('avFileType')}><option value="hls">HLS</option><option value="hls+mp4">HLS + MP4</option></select></label>` : null}
      <label class="field">Stop after (s without users)<input name="maxIdleTime" type="number" min="5" value=${f.maxIdleTime} onInput=${set('maxIdleTime')} /></label>
    </div>
    <div class="row" style="margin-top:.5rem">
      <label class="field">Bucket<input name="bucket" value=${f.bucket} onInput=${set('bucket')} required /></label>
      <label class="field">Access key<input name="accessKey" value=${f.accessKey} onInput=${set('accessKey')} required /></label>
      <label class="field">Secret key<input name="secretKey" type="password" value=${f.secretKey} onInput=${set('secretKey')} required /></label>
      <label class="field">File name prefix<input name="prefix" value=${f.prefix} onInput=${set('prefix')} /></label>
      <button class="primary" disabled=${busy}>${busy ? 'Creating…' : 'Create rule'}</button>
    </div>
    <${ErrorBody} error=${error} />
  </form>`;
}

export function Rules({ api, go }) {
  const [rules, loadError, reload] = usePolled(
    async () => {
      const { rules: list } = await api.rules();
      // Each rule's latest recording of each channel comes with the rule itself.
      return Promise.all(list.map((r) => api.rule(r.ruleId).catch(() => r)));
    },
    POLL_MS,
    [api],
  );
  const [remove, deleteError] = useDelete((rule) => api.deleteRule(rule.ruleId), reload);
  const error = deleteError ?? loadError;
  return html`<div>
    <div class="row" style="margin-bottom:1rem">
      <h1 style="margin:0">Recording rules</h1>
      <span class="muted small">channels recorded by themselves when their first publisher comes; refreshed every ${POLL_MS / 1000} s</span>
    </div>
    <${CreateForm} api=${api} onCreated=${reload} />
    <${ErrorBody} error=${error} />
    ${rules === null
      ? html`<p class="muted">Loading…</p>`
      : rules.length === 0
        ? html`<div class="card muted" id="no-rules">No rule yet.</div>`
        : rules.map((r) => html`<${RuleCard} key=${r.ruleId} rule=${r} go=${go} onDelete=${remove} />`)}
  </div>`;
}
