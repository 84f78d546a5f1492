// The record form: individual / mix / web, the exact acquire + start bodies as curl, and sending them.
import { useEffect, useState } from 'preact/hooks';
import { curlCommands, defaultForm, LAYOUTS, startBody } from './bodies.js';
import { LayoutPreview, mixUsers } from './layout-preview.js';
import { ErrorBody, html } from './ui.js';

function Field({ label, children }) {
  return html`<label class="field">${label}${children}</label>`;
}

export function RecordForm({ api, settings, channel, onClose, onStarted }) {
  const [f, setF] = useState(() => defaultForm(channel));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  const [log, setLog] = useState([]);
  const set = (k) => (e) => setF({ ...f, [k]: e.target.type === 'checkbox' ? e.target.checked : e.target.value });

  // Development: the recorder's RTC token comes from the /rtc/ page's stand-in token server.
  useEffect(() => {
    if (!settings.devTokens || !f.cname) return;
    let live = true;
    api
      .devToken(f.cname, f.uid)
      .then((t) => live && setF((cur) => ({ ...cur, token: t.token })))
      .catch(() => undefined);
    return () => (live = false);
  }, [f.cname, f.uid]);

  const curls = curlCommands(location.origin, api.recordingBase, f);
  const send = async (e) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const steps = [];
    try {
      const acquired = await api.acquire({ cname: f.cname, uid: f.uid, clientRequest: { scene: f.mode === 'web' ? 1 : 0, resourceExpiredHour: 24 } });
      steps.push(`acquire → resourceId ${acquired.resourceId.slice(0, 16)}…`);
      setLog([...steps]);
      const started = await api.start(acquired.resourceId, f.mode, startBody(f));
      steps.push(`start → sid ${started.sid}`);
      setLog([...steps]);
      onStarted(started.sid);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const mode = (m) => html`<button type="button" class=${f.mode === m ? 'on' : ''} onClick=${() => setF({ ...f, mode: m })}>${m}</button>`;
  return html`<div class="modal" onClick=${(e) => e.target === e.currentTarget && onClose()}>
    <form class="card" id="record-form" onSubmit=${send}>
      <div class="row">
        <h2 style="margin:0">Record ${f.cname || 'a channel'}</h2>
        <span class="spacer"></span>
        <div class="seg" role="tablist">${mode('individual')}${mode('mix')}${mode('web')}</div>
        <button type="button" onClick=${onClose} aria-label="close">✕</button>
      </div>
      <h3>Session</h3>
      <div class="row">
        <${Field} label="Channel"><input name="cname" value=${f.cname} onInput=${set('cname')} required /><//>
        <${Field} label="Recorder uid"><input name="uid" value=${f.uid} onInput=${set('uid')} required /><//>
        <${Field} label="Channel profile">
          <select name="channelType" value=${f.channelType} onChange=${set('channelType')}>
            <option value="0">communication</option><option value="1">live</option>
          </select><//>
        ${f.mode !== 'web'
          ? html`<${Field} label="Streams"><select name="streamTypes" value=${f.streamTypes} onChange=${set('streamTypes')}>
              <option value="2">audio + video</option><option value="1">video</option><option value="0">audio</option></select><//>`
          : null}
        <${Field} label=${settings.devTokens ? 'RTC token (development: filled in)' : 'RTC token'}>
          <input name="token" value=${f.token} onInput=${set('token')} /><//>
      </div>
      ${f.mode === 'mix'
        ? html`<h3>Layout</h3><div class="row">
            <${Field} label="Layout"><select name="layout" value=${f.layout} onChange=${set('layout')}>
              ${LAYOUTS.map((l) => html`<option value=${l.value}>${l.name}</option>`)}</select><//>
            <${Field} label="Width"><input type="number" value=${f.width} onInput=${set('width')} /><//>
            <${Field} label="Height"><input type="number" value=${f.height} onInput=${set('height')} /><//>
            <${Field} label="Files"><select value=${f.avFileType} onChange=${set('avFileType')}>
              <option value="hls">HLS</option><option value="hls+mp4">HLS + MP4</option></select><//>
            <${LayoutPreview} layout=${Number(f.layout)} users=${mixUsers(channel.participants)} width=${f.width} height=${f.height} />
            <span class="muted small">${LAYOUTS.find((l) => l.value === Number(f.layout))?.hint}</span>
          </div>`
        : null}
      ${f.mode === 'web'
        ? html`<h3>Web page</h3><div class="row">
            <${Field} label="Page URL"><input name="url" type="url" value=${f.url} onInput=${set('url')} required placeholder="https://…" style="min-width:18rem" /><//>
            <${Field} label="Width"><input type="number" value=${f.width} onInput=${set('width')} /><//>
            <${Field} label="Height"><input type="number" value=${f.height} onInput=${set('height')} /><//>
            <label class="check"><input type="checkbox" checked=${f.onhold} onChange=${set('onhold')} /> start on hold</label>
            <${Field} label="RTMP URL (optional)"><input name="rtmpUrl" value=${f.rtmpUrl} onInput=${set('rtmpUrl')} placeholder="rtmp://…" /><//>
          </div>`
        : null}
      <h3>Storage</h3>
      <div class="row">
        <${Field} label="Vendor"><input type="number" value=${f.vendor} onInput=${set('vendor')} style="width:5rem" /><//>
        <${Field} label="Region"><input type="number" value=${f.region} onInput=${set('region')} style="width:5rem" /><//>
        <${Field} label="Bucket"><input value=${f.bucket} onInput=${set('bucket')} /><//>
        <${Field} label="Access key"><input value=${f.accessKey} onInput=${set('accessKey')} /><//>
        <${Field} label="Secret key"><input type="password" value=${f.secretKey} onInput=${set('secretKey')} /><//>
        <${Field} label="File name prefix (a/b)"><input value=${f.prefix} onInput=${set('prefix')} /><//>
      </div>
      ${settings.env === 'development' ? html`<p class="muted small">Development: every session goes to the local bucket whatever the vendor.</p>` : null}
      <h3>What will be sent</h3>
      <pre id="curl-acquire">${curls.acquire}</pre>
      <pre id="curl-start">${curls.start}</pre>
      <div class="row">
        <button type="button" onClick=${() => navigator.clipboard?.writeText(`${curls.acquire}\n\n${curls.start}`)}>Copy curl</button>
        <span class="spacer"></span>
        ${log.map((l) => html`<span class="muted small">${l}</span>`)}
        <button class="primary" id="record-send" disabled=${busy}>${busy ? 'Starting…' : 'Acquire and start'}</button>
      </div>
      <${ErrorBody} error=${error} />
    </form>
  </div>`;
}
