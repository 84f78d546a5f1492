// Channels: who is in each live channel and what they publish, polled from GET /rtc/v1/apps/{appId}/channels.
import { useEffect, useState } from 'preact/hooks';
import { RecordForm } from './record-form.js';
import { ErrorBody, fmtClock, html } from './ui.js';

const POLL_MS = 2000;

function Track({ t }) {
  return html`<span class="badge" title=${t.codec}><span class="muted">${t.kind}</span> ${t.codec.replace(/^(audio|video)\//, '')}</span>`;
}

function ChannelCard({ ch, onRecord }) {
  return html`<section class="card channel" data-cname=${ch.cname}>
    <div class="row">
      <h2 style="margin:0">${ch.cname}</h2>
      <span class="badge">${ch.profile ?? '—'}</span>
      <span class="muted small">${ch.participants.length} participant${ch.participants.length === 1 ? '' : 's'}</span>
      <span class="spacer"></span>
      <a class="button" href=${`/rtc/?channel=${encodeURIComponent(ch.cname)}`} target="_blank" rel="noopener">Join</a>
      <button class="primary" onClick=${() => onRecord(ch)}>Record</button>
    </div>
    <div style="margin-top:.6rem">
      ${ch.participants.map(
        (p) => html`<div class="participant" data-uid=${p.uid}>
          <span class="uid">${p.uid}</span>
          <span class="badge">${p.role}</span>
          ${p.tracks.map((t) => html`<${Track} t=${t} />`)}
          ${p.tracks.length === 0 ? html`<span class="muted small">no tracks</span>` : null}
          <span class="spacer"></span>
          <span class="muted small hide-narrow">joined ${fmtClock(p.joinedAt)}</span>
        </div>`,
      )}
    </div>
  </section>`;
}

export function Channels({ api, settings, go }) {
  const [channels, setChannels] = useState(null);
  const [error, setError] = useState(null);
  const [recording, setRecording] = useState(null);
  useEffect(() => {
    let stopped = false;
    let timer;
    const load = async () => {
      try {
        const r = await api.channels();
        if (!stopped) {
          setChannels(r.channels);
          setError(null);
        }
      } catch (e) {
        if (!stopped) setError(e);
      }
      if (!stopped) timer = setTimeout(load, POLL_MS);
    };
    load();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [api]);
  return html`<div>
    <div class="row" style="margin-bottom:1rem">
      <h1 style="margin:0">Channels</h1>
      <span class="muted small">live, refreshed every ${POLL_MS / 1000} s</span>
      <span class="spacer"></span>
      <button onClick=${() => setRecording({ cname: '', participants: [], profile: null })}>Record another channel</button>
    </div>
    <${ErrorBody} error=${error} />
    ${channels === null
      ? html`<p class="muted">Loading…</p>`
      : channels.length === 0
        ? html`<div class="card muted" id="no-channels">Nobody is in a channel. Open the <a href="/rtc/" target="_blank">call page</a>
            or run <code>npx reeltime publish</code> to start one.</div>`
        : html`<div class="grid">${channels.map((ch) => html`<${ChannelCard} key=${ch.cname} ch=${ch} onRecord=${setRecording} />`)}</div>`}
    ${recording
      ? html`<${RecordForm} api=${api} settings=${settings} channel=${recording} onClose=${() => setRecording(null)}
          onStarted=${(sid) => {
            setRecording(null);
            go(`#/recordings/${sid}`);
          }} />`
      : null}
  </div>`;
}
