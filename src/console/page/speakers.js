// The speaker timeline under the players (`recordingConfig.speakerTimeline`): one lane per uid, one mark per
// interval, placed on the session's clock; a click seeks the player that holds that user's sound to the interval
// (docs/console.md, docs/tasks/speaker-timeline.md).
import { useEffect, useState } from 'preact/hooks';
import { html } from './ui.js';

/** The session's `…_speakers.json` and `.vtt`, when it has them with a link. */
export function speakerFiles(files) {
  const find = (ext) => files.find((f) => f.url && f.fileName.endsWith(`_speakers.${ext}`));
  return { json: find('json'), vtt: find('vtt') };
}

/** The player of a uid's sound: its own in individual mode, the mix's in mix mode. */
function playerOf(mode, uid) {
  const scope = mode === 'individual' ? `#playback figure[data-player="uid ${uid}"]` : '#playback figure';
  return document.querySelector(`${scope} video, ${scope} audio`);
}

export function SpeakerLanes({ file, mode }) {
  const [doc, setDoc] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    let gone = false;
    fetch(file.url, { cache: 'no-store' })
      .then((r) => (r.ok ? r.json() : Promise.reject(new Error(`speaker timeline: HTTP ${r.status}`))))
      .then((d) => !gone && setDoc(d))
      .catch((e) => !gone && setError(e.message));
    return () => (gone = true);
  }, [file.url]);
  if (error) return html`<p class="error small">${error}</p>`;
  if (!doc) return null;
  if (doc.speakers.length === 0) return html`<p class="muted small" id="speakers">Nobody spoke${doc.final ? '' : ' yet'}.</p>`;
  const from = Math.min(...doc.speakers.map((s) => s.startUtcMs));
  const span = Math.max(1, Math.max(...doc.speakers.map((s) => s.endUtcMs)) - from);
  const pct = (ms) => `${((100 * ms) / span).toFixed(3)}%`;
  const seek = (s) => {
    const player = playerOf(mode, s.uid);
    const at = s.media[0]?.startSec;
    if (player && at !== undefined) player.currentTime = at;
  };
  const uids = [...new Set(doc.speakers.map((s) => s.uid))].sort();
  return html`<div id="speakers" data-final=${String(doc.final)}>
    <h3>Who spoke when</h3>
    ${uids.map(
      (uid) => html`<div class="lane" data-uid=${uid}>
        <span class="small">uid ${uid}</span>
        <div class="lane-track">${doc.speakers
          .filter((s) => s.uid === uid)
          .map(
            (s) => html`<button class="speech" style=${`left:${pct(s.startUtcMs - from)};width:${pct(s.endUtcMs - s.startUtcMs)}`}
              data-start=${s.media[0]?.startSec ?? ''} title=${`${((s.endUtcMs - s.startUtcMs) / 1000).toFixed(1)} s${s.text ? `: ${s.text}` : ''}`}
              onClick=${() => seek(s)}></button>`,
          )}</div>
      </div>`,
    )}
  </div>`;
}
