// Channels: who is in each live channel and what they publish, polled from GET /rtc/v1/apps/{appId}/channels, with
// a bitrate sparkline per track from the SFU's counters (GET /rtc/v1/apps/{appId}/track-stats, an event stream).
import { useEffect, useState } from 'preact/hooks';
import { RecordForm } from './record-form.js';
import { ErrorBody, fmtClock, html, usePolled } from './ui.js';

const POLL_MS = 2000;
/** Samples kept per track: a minute at the server's one-second interval. */
const HISTORY = 60;
const RECONNECT_MS = 3000;

export const trackKey = (cname, uid, kind) => `${cname}/${uid}/${kind}`;

/** Bitrate history per track (kbit/s, newest last), fed by the track-stats stream; reconnects when it drops. */
export function useBitrates(api) {
  const [history, setHistory] = useState(() => new Map());
  useEffect(() => {
    const abort = new AbortController();
    let timer;
    const onSample = (sample) =>
      setHistory((old) => {
        const next = new Map();
        for (const t of sample.tracks) {
          const key = trackKey(t.cname, t.uid, t.kind);
          const values = old.get(key) ?? [];
          next.set(key, t.bitrateBps === null ? values : [...values, Math.round(t.bitrateBps / 1000)].slice(-HISTORY));
        }
        return next;
      });
    const connect = () =>
      api.trackStats(onSample, abort.signal).then(
        () => !abort.signal.aborted && (timer = setTimeout(connect, RECONNECT_MS)),
        () => !abort.signal.aborted && (timer = setTimeout(connect, RECONNECT_MS)),
      );
    connect();
    return () => {
      abort.abort();
      clearTimeout(timer);
    };
  }, [api]);
  return history;
}

const fmtKbps = (v) => (v >= 1000 ? `${(v / 1000).toFixed(1)} Mbit/s` : `${v} kbit/s`);

/** A small line of the last minute's bitrate, scaled to its own peak; the current value beside it. */
export function Sparkline({ kind, values }) {
  const w = 96;
  const h = 22;
  const peak = Math.max(1, ...values);
  // Ten samples span the width at first; from there on the line fills it and scrolls.
  const step = w / (Math.min(HISTORY, Math.max(values.length, 10)) - 1);
  const x0 = w - (values.length - 1) * step;
  const points = values.map((v, i) => `${(x0 + i * step).toFixed(1)},${(h - 1 - (v / peak) * (h - 2)).toFixed(1)}`).join(' ');
  const now = values.at(-1);
  return html`<span class="spark" data-kind=${kind} data-values=${values.join(',')} title=${`${kind}: last minute, peak ${fmtKbps(peak)}`}>
    <svg width=${w} height=${h} viewBox=${`0 0 ${w} ${h}`} aria-hidden="true">
      ${values.length > 1 ? html`<polyline points=${points} />` : null}
    </svg>
    <span class="small muted">${now === undefined ? '…' : fmtKbps(now)}</span>
  </span>`;
}

function Track({ t, values }) {
  return html`<span class="track"><span class="badge" title=${t.codec}><span class="muted">${t.kind}</span> ${t.codec.replace(/^(audio|video)\//, '')}</span>
    <${Sparkline} kind=${t.kind} values=${values ?? []} /></span>`;
}

function ChannelCard({ ch, onRecord, bitrates, ingressKinds }) {
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
          ${ingressKinds.has(`${ch.cname}/${p.uid}`) ? html`<a class="badge" data-role="ingress" href="#/ingress" title="an ingress publishes as this uid">${ingressKinds.get(`${ch.cname}/${p.uid}`)} ingress</a>` : null}
          ${p.tracks.map((t) => html`<${Track} t=${t} values=${bitrates.get(trackKey(ch.cname, p.uid, t.kind))} />`)}
          ${p.tracks.length === 0 ? html`<span class="muted small">no tracks</span>` : null}
          <span class="spacer"></span>
          <span class="muted small hide-narrow">joined ${fmtClock(p.joinedAt)}</span>
        </div>`,
      )}
    </div>
  </section>`;
}

export function Channels({ api, settings, go }) {
  const [recording, setRecording] = useState(null);
  const bitrates = useBitrates(api);
  // Which participants are ingresses (RTMP, SRT, RTSP sources), to show their kind on the card.
  const [polled, error] = usePolled(
    async () => {
      const [r, ingress] = await Promise.all([api.channels(), api.ingresses().catch(() => ({ ingresses: [] }))]);
      return { channels: r.channels, ingressKinds: new Map(ingress.ingresses.map((i) => [`${i.cname}/${i.uid}`, i.kind])) };
    },
    POLL_MS,
    [api],
  );
  const channels = polled?.channels ?? null;
  const ingressKinds = polled?.ingressKinds ?? new Map();
  return html`<div>
    <div class="row" style="margin-bottom:1rem">
      <h1 style="margin:0">Channels</h1>
      <span class="muted small">live, refreshed every ${POLL_MS / 1000} s; bitrates every second</span>
      <span class="spacer"></span>
      <button onClick=${() => setRecording({ cname: '', participants: [], profile: null })}>Record another channel</button>
    </div>
    <${ErrorBody} error=${error} />
    ${channels === null
      ? html`<p class="muted">Loading…</p>`
      : channels.length === 0
        ? html`<div class="card muted" id="no-channels">Nobody is in a channel. Open the <a href="/rtc/" target="_blank">call page</a>
            or run <code>npx reeltime publish</code> to start one.</div>`
        : html`<div class="grid">${channels.map((ch) => html`<${ChannelCard} key=${ch.cname} ch=${ch} bitrates=${bitrates} ingressKinds=${ingressKinds} onRecord=${setRecording} />`)}</div>`}
    ${recording
      ? html`<${RecordForm} api=${api} settings=${settings} channel=${recording} onClose=${() => setRecording(null)}
          onStarted=${(sid) => {
            setRecording(null);
            go(`#/recordings/${sid}`);
          }} />`
      : null}
  </div>`;
}
