// Plays an HLS media playlist whose slices are WebM (individual mode records VP8 publishers that way; hls.js only
// plays TS and fMP4). Each slice is a whole WebM file with its timestamps starting at zero, so they go through Media
// Source Extensions one after another in "sequence" mode: the browser lays each slice right after the previous one.
// Slices are fetched when the buffer ahead runs short, old ones are dropped, a seek outside the buffer restarts
// from the slice holding that time, and a playlist without #EXT-X-ENDLIST is polled for new slices.

export const WEBM_VP8 = 'video/webm; codecs="vp8"';
const AHEAD_S = 30;
const BEHIND_S = 60;
const POLL_MS = 4000;

/** Pure: the slices of a media playlist (absolute URLs, durations, start times) and whether it is finished. */
export function parseMediaPlaylist(text, baseUrl) {
  const segments = [];
  let duration = 0;
  let start = 0;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line.startsWith('#EXTINF:')) duration = Number.parseFloat(line.slice(8)) || 0;
    else if (line && !line.startsWith('#')) {
      segments.push({ url: new URL(line, baseUrl).href, duration, start });
      start += duration;
      duration = 0;
    }
  }
  return { segments, ended: /^#EXT-X-ENDLIST\s*$/m.test(text), total: start };
}

/** Whether a media playlist's slices are WebM (the query of a signed link is not part of the name). */
export function isWebmPlaylist(text) {
  return text.split(/\r?\n/).some((l) => l && !l.startsWith('#') && /\.webm$/i.test(l.trim().split('?')[0]));
}

/** Plays the WebM playlist at `src` in `video`; returns the function that stops it. */
export function attachWebmPlaylist(video, src, onError) {
  if (!(window.MediaSource && MediaSource.isTypeSupported(WEBM_VP8))) return playSliceBySlice(video, src, onError);
  const ms = new MediaSource();
  const objectUrl = URL.createObjectURL(ms);
  video.src = objectUrl;
  let list = { segments: [], ended: false, total: 0 };
  let sb = null;
  let next = 0;
  let fetching = false;
  let closed = false;
  let timer;
  const fail = (e) => !closed && onError(e instanceof Error ? e.message : String(e));

  const bufferedEnd = (t) => {
    for (let i = 0; i < sb.buffered.length; i++) if (sb.buffered.start(i) <= t + 0.3 && t <= sb.buffered.end(i)) return sb.buffered.end(i);
    return t;
  };
  const pump = () => {
    if (closed || !sb || sb.updating || fetching || ms.readyState === 'closed') return;
    const t = video.currentTime;
    if (sb.buffered.length && sb.buffered.start(0) < t - BEHIND_S) return sb.remove(0, t - BEHIND_S);
    if (next >= list.segments.length) {
      if (list.ended && ms.readyState === 'open') ms.endOfStream();
      return;
    }
    if (bufferedEnd(t) - t > AHEAD_S) return;
    const i = next;
    fetching = true;
    fetch(list.segments[i].url)
      .then((r) => (r.ok ? r.arrayBuffer() : Promise.reject(new Error(`slice ${i}: HTTP ${r.status}`))))
      .then((data) => {
        fetching = false;
        // A seek while it was on its way moved `next` elsewhere: this slice is no longer wanted.
        if (closed || i !== next) return pump();
        next = i + 1;
        sb.appendBuffer(data);
      })
      .catch((e) => {
        fetching = false;
        fail(e);
      });
  };
  const refresh = async () => {
    try {
      const r = await fetch(src, { cache: 'no-store' });
      if (!r.ok) throw new Error(`playlist: HTTP ${r.status}`);
      list = parseMediaPlaylist(await r.text(), r.url);
      // The seek bar shows the whole recording once it is known (never below what is buffered: that would cut it).
      if (list.ended && ms.readyState === 'open' && !sb.updating) {
        const end = sb.buffered.length ? sb.buffered.end(sb.buffered.length - 1) : 0;
        ms.duration = Math.max(list.total, end);
      }
      pump();
      if (!list.ended && !closed) timer = setTimeout(refresh, POLL_MS);
    } catch (e) {
      fail(e);
    }
  };
  const onSeeking = () => {
    if (!sb) return;
    const t = video.currentTime;
    for (let i = 0; i < sb.buffered.length; i++) if (sb.buffered.start(i) <= t && t < sb.buffered.end(i)) return;
    const i = Math.max(0, list.segments.findLastIndex((s) => s.start <= t));
    if (sb.updating) sb.abort();
    next = i;
    // In sequence mode the offset sets where the next slice begins on the timeline.
    sb.timestampOffset = list.segments[i]?.start ?? 0;
    pump();
  };
  ms.addEventListener(
    'sourceopen',
    () => {
      sb = ms.addSourceBuffer(WEBM_VP8);
      sb.mode = 'sequence';
      sb.addEventListener('updateend', pump);
      sb.addEventListener('error', () => fail('the browser could not decode a slice'));
      refresh();
    },
    { once: true },
  );
  video.addEventListener('timeupdate', pump);
  video.addEventListener('seeking', onSeeking);
  return () => {
    closed = true;
    clearTimeout(timer);
    video.removeEventListener('timeupdate', pump);
    video.removeEventListener('seeking', onSeeking);
    video.removeAttribute('src');
    video.load();
    URL.revokeObjectURL(objectUrl);
  };
}

/** Without MSE for WebM: each slice in turn as the element's own source (a short pause between slices). */
function playSliceBySlice(video, src, onError) {
  let segments = [];
  let i = 0;
  let closed = false;
  const onEnded = () => {
    if (++i < segments.length) {
      video.src = segments[i].url;
      video.play().catch(() => undefined);
    }
  };
  fetch(src, { cache: 'no-store' })
    .then((r) => (r.ok ? r.text() : Promise.reject(new Error(`playlist: HTTP ${r.status}`))))
    .then((text) => {
      if (closed) return;
      ({ segments } = parseMediaPlaylist(text, src));
      if (segments.length) video.src = segments[0].url;
    })
    .catch((e) => !closed && onError(e.message));
  video.addEventListener('ended', onEnded);
  return () => {
    closed = true;
    video.removeEventListener('ended', onEnded);
  };
}
