// Playback in the page: hls.js for TS playlists, <video> for MP4, per-user players for individual mode, snapshots.
import { useEffect, useRef } from 'preact/hooks';
import Hls from 'hls.js';
import { html } from './ui.js';

function HlsVideo({ src, audioOnly }) {
  const ref = useRef(null);
  useEffect(() => {
    const media = ref.current;
    if (!media || !src) return;
    // hls.js over Media Source Extensions wherever it can; native HLS (Safari, iOS) otherwise.
    if (!Hls.isSupported()) {
      media.src = src;
      return;
    }
    const hls = new Hls({ enableWorker: false });
    hls.loadSource(src);
    hls.attachMedia(media);
    return () => hls.destroy();
  }, [src]);
  return audioOnly
    ? html`<audio ref=${ref} controls preload="metadata" data-src=${src}></audio>`
    : html`<video ref=${ref} controls muted playsinline preload="metadata" data-src=${src}></video>`;
}

const ext = (f) => f.fileName.split('.').pop().toLowerCase();

/** Files grouped the way they play: one entry per player. */
export function playable(files, mode) {
  const withUrl = files.filter((f) => f.url);
  const players = [];
  if (mode === 'individual') {
    const byUid = new Map();
    for (const f of withUrl.filter((f) => ext(f) === 'm3u8')) {
      const p = byUid.get(f.uid) ?? { uid: f.uid };
      if (f.trackType === 'audio') p.audio = f;
      else p.video = f;
      byUid.set(f.uid, p);
    }
    for (const p of byUid.values()) players.push({ label: `uid ${p.uid}`, video: p.video, audio: p.audio });
  } else {
    for (const f of withUrl) {
      if (ext(f) === 'm3u8') players.push({ label: `${f.fileName.split('/').pop()} (HLS)`, video: f });
      if (ext(f) === 'mp4') players.push({ label: `${f.fileName.split('/').pop()} (MP4)`, mp4: f });
    }
  }
  return players;
}

export function Players({ files, mode }) {
  const players = playable(files, mode);
  const snapshots = files.filter((f) => f.url && ext(f) === 'jpg');
  if (players.length === 0 && snapshots.length === 0) {
    return html`<p class="muted small">Nothing to play here: files are playable in the page when recordings go to the local bucket.</p>`;
  }
  return html`<div>
    <div class="players">
      ${players.map(
        (p) => html`<figure data-player=${p.label}>
          ${p.mp4 ? html`<video src=${p.mp4.url} controls muted playsinline preload="metadata"></video>` : null}
          ${p.video ? html`<${HlsVideo} src=${p.video.url} />` : null}
          ${p.audio ? html`<${HlsVideo} src=${p.audio.url} audioOnly=${true} />` : null}
          <figcaption>${p.label}</figcaption>
        </figure>`,
      )}
    </div>
    ${snapshots.length
      ? html`<h3>Snapshots</h3><div class="gallery">${snapshots.map((s) => html`<a href=${s.url} target="_blank"><img src=${s.url} alt=${s.fileName} loading="lazy" /></a>`)}</div>`
      : null}
  </div>`;
}
