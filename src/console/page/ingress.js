// Ingress (reeltime's extension, docs/ingest.md): the app's ingresses with their state, what to type into OBS
// (Server and Stream Key, each with a copy button), the video bitrate of a publishing source, and a form to create
// one. Polled from GET /v1/apps/{appId}/ingress; bitrates from the SFU's track-stats stream, as on Channels.
import { useState } from 'preact/hooks';
import { Sparkline, trackKey, useBitrates } from './channels.js';
import { ErrorBody, fmtTime, html, useDelete, usePolled, useSubmit } from './ui.js';

const POLL_MS = 2000;

const STATE_CLASS = { publishing: 'ok', waiting: 'idle', failed: 'bad' };

/** A value with a copy button; the value stays visible so it can also be selected by hand. */
function Copyable({ label, value, name }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
      setTimeout(() => setCopied(false), 1500);
    } catch {
      setCopied(false);
    }
  };
  return html`<div class="copyable" data-name=${name}>
    <span class="muted small">${label}</span>
    <code>${value}</code>
    <button class="small" onClick=${copy}>${copied ? 'Copied' : 'Copy'}</button>
  </div>`;
}

function IngressCard({ i, bitrates, onDelete }) {
  const video = bitrates.get(trackKey(i.cname, Number(i.uid), 'video'));
  return html`<section class="card ingress" data-ingress=${i.ingressId} data-state=${i.state}>
    <div class="row">
      <span class="badge">${i.kind}</span>
      <h2 style="margin:0">${i.cname} · uid ${i.uid}</h2>
      <span class=${`badge ${STATE_CLASS[i.state] ?? 'idle'}`} data-role="state">${i.state}</span>
      <span class="spacer"></span>
      <button class="danger" onClick=${() => onDelete(i)}>Delete</button>
    </div>
    ${i.error ? html`<p class="small" data-role="error" style="color:var(--bad)">${i.error}</p>` : null}
    ${i.push
      ? html`<div style="margin-top:.6rem">
          <${Copyable} label=${i.kind === 'srt' ? 'URL' : 'Server'} value=${i.push.server} name="server" />
          <${Copyable} label=${i.kind === 'srt' ? 'Passphrase' : 'Stream Key'} value=${i.push.streamKey} name="streamKey" />
          <${Copyable} label="ffmpeg" value=${i.push.url} name="url" />
        </div>`
      : html`<p class="small muted">Pulled from <code>${i.url}</code>${i.transport ? ` over ${i.transport.toUpperCase()}` : ''}</p>`}
    <div class="row small muted" style="margin-top:.4rem">
      ${i.state === 'publishing' ? html`<${Sparkline} kind="video" values=${video ?? []} />` : null}
      <span class="spacer"></span><span>updated ${fmtTime(i.updatedMs)}</span>
    </div>
  </section>`;
}

const PLACEHOLDERS = { srt: 'srt://host:port?passphrase=…', rtsp: 'rtsp://user:password@camera:554/stream', whep: 'https://server/…/whep' };

function CreateForm({ api, onCreated }) {
  const [form, setForm] = useState({ cname: '', uid: '', kind: 'rtmp', url: '', transport: 'tcp', token: '' });
  const { busy, error, run } = useSubmit();
  const set = (k) => (e) => setForm({ ...form, [k]: e.target.value });
  const submit = (e) => {
    e.preventDefault();
    const body = { cname: form.cname, uid: form.uid, kind: form.kind };
    if (form.url) body.url = form.url;
    if (form.kind === 'rtsp') body.transport = form.transport;
    if (form.kind === 'whep' && form.token) body.token = form.token;
    return run(async () => {
      onCreated(await api.createIngress(body));
      setForm({ ...form, uid: '', url: '', token: '' });
    });
  };
  const pulls = form.kind === 'rtsp' || form.kind === 'whep';
  return html`<form class="card" id="new-ingress" onSubmit=${submit}>
    <div class="row">
      <label class="field">Channel<input name="cname" value=${form.cname} onInput=${set('cname')} required /></label>
      <label class="field">uid<input name="uid" value=${form.uid} onInput=${set('uid')} required inputmode="numeric" /></label>
      <label class="field">Source<select name="kind" value=${form.kind} onChange=${set('kind')}>
        <option value="rtmp">RTMP push (OBS)</option><option value="srt">SRT</option><option value="rtsp">RTSP camera</option><option value="whep">WHEP stream</option></select></label>
      ${pulls || form.kind === 'srt'
        ? html`<label class="field" style="flex:1">${form.kind === 'srt' ? "URL of the encoder's listener (empty: reeltime listens)" : 'URL'}
            <input name="url" value=${form.url} onInput=${set('url')} required=${pulls} placeholder=${PLACEHOLDERS[form.kind]} /></label>`
        : null}
      ${form.kind === 'whep'
        ? html`<label class="field">Bearer token (if the source wants one)<input name="token" type="password" value=${form.token} onInput=${set('token')} autocomplete="off" /></label>`
        : null}
      ${form.kind === 'rtsp'
        ? html`<label class="field">Transport<select name="transport" value=${form.transport} onChange=${set('transport')}><option>tcp</option><option>udp</option></select></label>`
        : null}
      <button class="primary" disabled=${busy}>${busy ? 'Creating…' : 'Create'}</button>
    </div>
    <${ErrorBody} error=${error} />
  </form>`;
}

export function Ingress({ api }) {
  const [list, loadError, reload] = usePolled(() => api.ingresses(), POLL_MS, [api]);
  const ingresses = list?.ingresses ?? null;
  const bitrates = useBitrates(api);
  const [remove, deleteError] = useDelete((i) => api.deleteIngress(i.ingressId), reload);
  const error = deleteError ?? loadError;
  return html`<div>
    <div class="row" style="margin-bottom:1rem">
      <h1 style="margin:0">Ingress</h1>
      <span class="muted small">sources outside WebRTC (OBS over RTMP or SRT, RTSP cameras) as channel participants; refreshed every ${POLL_MS / 1000} s</span>
    </div>
    <${CreateForm} api=${api} onCreated=${reload} />
    <${ErrorBody} error=${error} />
    ${ingresses === null
      ? html`<p class="muted">Loading…</p>`
      : ingresses.length === 0
        ? html`<div class="card muted" id="no-ingress">No ingress yet: create one above, then point OBS at its Server and Stream Key.</div>`
        : html`<div class="grid">${ingresses.map((i) => html`<${IngressCard} key=${i.ingressId} i=${i} bitrates=${bitrates} onDelete=${remove} />`)}</div>`}
  </div>`;
}
