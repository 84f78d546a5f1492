// Playback in the page: hls.js for TS playlists, our WebM playlist player for VP8 slices, <video> for MP4, per-user
// players for individual mode, snapshots.
import { useEffect, useRef, useState } from 'preact/hooks';
import Hls from 'hls.js';
import { html } from './ui.js';
import { attachWebmPlaylist, isWebmPlaylist } from './webm-playlist.js';
import { SpeakerLanes, speakerFiles } from './speakers.js';

/** The speaker timeline's WebVTT as the player's captions (mix mode: its cues are in the mix playlist's time). */
const captionsOf = (vtt) => (vtt ? html`<track kind="captions" label="Speakers" srclang="en" src=${vtt} default />` : null);

function HlsVideo({ src, audioOnly, captions }) {
  const ref = useRef(null);
  useEffect(() => {
    const media = ref.current;
    if (!media || !src) return;
    // hls.js over Media Source Extensions wherever it can; native HLS (Safari, iOS) otherwise.
    if (!Hls.isSupported()) {
      media.src = src;
      return;
    }
    // From the first slice, also while the session records (hls.js would start a playlist without ENDLIST near its
    // live edge); the duration follows the playlist as it grows, so the seek bar does too.
    const hls = new Hls({ enableWorker: false, startPosition: 0 });
    hls.loadSource(src);
    hls.attachMedia(media);
    return () => hls.destroy();
  }, [src]);
  return audioOnly
    ? html`<audio ref=${ref} controls preload="metadata" data-src=${src}></audio>`
    : html`<video ref=${ref} controls muted playsinline preload="metadata" data-src=${src} data-player="hls">${captionsOf(captions)}</video>`;
}

function WebmVideo({ src }) {
  const ref = useRef(null);
  const [error, setError] = useState(null);
  useEffect(() => ref.current && attachWebmPlaylist(ref.current, src, setError), [src]);
  return html`<video ref=${ref} controls muted playsinline data-src=${src} data-player="webm"></video>
    ${error ? html`<p class="error small">${error}</p>` : null}`;
}

/**
 * A video playlist: hls.js for TS slices, the WebM playlist player for WebM ones (VP8 publishers in individual mode).
 * Which one is read from the playlist itself: its slice names say the container.
 */
function PlaylistVideo({ src, captions }) {
  const [kind, setKind] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    let gone = false;
    fetch(src, { cache: 'no-store' })
      .then((r) => (r.ok ? r.text() : Promise.reject(new Error(`playlist: HTTP ${r.status}`))))
      .then((text) => !gone && setKind(isWebmPlaylist(text) ? 'webm' : 'hls'))
      .catch((e) => !gone && setError(e.message));
    return () => (gone = true);
  }, [src]);
  if (error) return html`<p class="error small">${error}</p>`;
  if (kind === 'webm') return html`<${WebmVideo} src=${src} />`;
  if (kind === 'hls') return html`<${HlsVideo} src=${src} captions=${captions} />`;
  return html`<p class="muted small">Loading…</p>`;
}

const ext = (f) => f.fileName.split('.').pop().toLowerCase();

/** Files grouped the way they play: one entry per player. */
export function playable(files, mode) {
  const withUrl = files.filter((f) => f.url);
  const players = [];
  if (mode === 'individual') {
    const byUid = new Map();
    for (const f of withUrl) {
      const p = byUid.get(f.uid) ?? { uid: f.uid };
      // The user's MP4 (`[hls, mp4]`) plays in any browser, VP8 publishers included (it is H.264): preferred.
      if (ext(f) === 'mp4') p.mp4 = f;
      else if (ext(f) === 'm3u8' && f.trackType === 'audio') p.audio = f;
      else if (ext(f) === 'm3u8' && f.trackType === 'video') p.video = f;
      byUid.set(f.uid, p);
    }
    for (const p of byUid.values()) {
      if (p.mp4) {
        // An audio-only or video-only MP4 leaves the other kind to its playlist.
        const t = p.mp4.trackType;
        players.push({ label: `uid ${p.uid}`, mp4: p.mp4, video: t === 'audio' ? p.video : undefined, audio: t === 'video' ? p.audio : undefined });
      } else if (p.video || p.audio) players.push({ label: `uid ${p.uid}`, video: p.video, audio: p.audio });
    }
    // Scene 2's mixed audio of every user (mp3, m4a, aac).
    for (const f of withUrl.filter((f) => ['mp3', 'm4a', 'aac'].includes(ext(f)))) players.push({ label: `${f.fileName.split('/').pop()} (audio)`, sound: f });
  } else {
    for (const f of withUrl) {
      if (ext(f) === 'm3u8') players.push({ label: `${f.fileName.split('/').pop()} (HLS)`, video: f });
      if (ext(f) === 'mp4') players.push({ label: `${f.fileName.split('/').pop()} (MP4)`, mp4: f });
    }
  }
  return players;
}

/**
 * The first link handed out for each file, while it has more than a minute left: in production every refresh of the
 * session brings freshly signed links, and a new `src` would restart the players of a live recording.
 */
function useStableUrls(files) {
  const seen = useRef(new Map());
  return files.map((f) => {
    const prev = seen.current.get(f.fileName);
    const expires = prev ? Number(new URL(prev, location.href).searchParams.get('expires')) : 0;
    if (prev && (!expires || expires * 1000 - Date.now() > 60_000)) return prev === f.url ? f : { ...f, url: prev };
    if (f.url) seen.current.set(f.fileName, f.url);
    return f;
  });
}

export function Players({ files: given, mode }) {
  const files = useStableUrls(given);
  const players = playable(files, mode);
  const captions = mode === 'mix' ? speakerFiles(files).vtt?.url : undefined;
  const snapshots = files.filter((f) => f.url && ext(f) === 'jpg');
  if (players.length === 0 && snapshots.length === 0) {
    return html`<p class="muted small">Nothing to play here: no file has a link yet.</p>`;
  }
  return html`<div>
    <div class="players">
      ${players.map(
        (p) => html`<figure data-player=${p.label}>
          ${p.mp4
            ? p.mp4.trackType === 'audio'
              ? html`<audio src=${p.mp4.url} controls preload="metadata"></audio>`
              : html`<video src=${p.mp4.url} controls muted playsinline preload="metadata" data-player="mp4">${captionsOf(captions)}</video>`
            : null}
          ${p.sound ? html`<audio src=${p.sound.url} controls preload="metadata"></audio>` : null}
          ${p.video ? html`<${PlaylistVideo} src=${p.video.url} captions=${captions} />` : null}
          ${p.audio ? html`<${HlsVideo} src=${p.audio.url} audioOnly=${true} />` : null}
          <figcaption>${p.label}</figcaption>
        </figure>`,
      )}
    </div>
    ${speakerFiles(files).json ? html`<${SpeakerLanes} file=${speakerFiles(files).json} mode=${mode} />` : null}
    ${snapshots.length
      ? html`<h3>Snapshots</h3><div class="gallery">${snapshots.map((s) => html`<a href=${s.url} target="_blank"><img src=${s.url} alt=${s.fileName} loading="lazy" /></a>`)}</div>`
      : null}
  </div>`;
}
