// A live recording's channel in real time: every publisher over WHEP, with a subscriber token that the customer's
// credentials get from the server (POST …/viewer-token), shown in place of the recording's players while "Live" is on.
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from './ui.js';

/** The viewer's uid: random and above what apps usually hand out, so it is no publisher's (a uid may subscribe many times). */
const viewerUid = () => 4_000_000_000 + Math.floor(Math.random() * 290_000_000);

function gathered(pc) {
  if (pc.iceGatheringState === 'complete') return Promise.resolve();
  return new Promise((resolve) => {
    pc.addEventListener('icegatheringstatechange', () => pc.iceGatheringState === 'complete' && resolve());
    setTimeout(resolve, 2000); // the node is ICE-lite and learns our address from our checks: never wait long
  });
}

/**
 * One WHEP view of `publisher`: a receive-only peer, its offer POSTed with the token in the query too (a browser drops
 * the Authorization header when a 307 sends the POST to the node that hosts the channel), the answer applied.
 */
async function watch({ appId, cname, profile, uid, token, iceServers, publisher }) {
  const pc = new RTCPeerConnection({ iceServers });
  pc.addTransceiver('video', { direction: 'recvonly' });
  pc.addTransceiver('audio', { direction: 'recvonly' });
  const stream = new MediaStream();
  pc.addEventListener('track', (e) => stream.addTrack(e.track));
  let session;
  const close = () => {
    pc.close();
    if (session) fetch(session, { method: 'DELETE' }).catch(() => undefined);
  };
  try {
    await pc.setLocalDescription(await pc.createOffer());
    await gathered(pc);
    const q = new URLSearchParams({ uid: String(uid), publisher: String(publisher) });
    if (profile) q.set('profile', profile);
    if (token) q.set('token', token);
    const res = await fetch(`/rtc/v1/apps/${encodeURIComponent(appId)}/channels/${encodeURIComponent(cname)}/whep?${q}`, {
      method: 'POST',
      headers: { 'content-type': 'application/sdp', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: pc.localDescription.sdp,
    });
    const text = await res.text();
    if (res.status !== 201) {
      let reason = text;
      try {
        reason = JSON.parse(text).reason ?? text;
      } catch {}
      throw new Error(`uid ${publisher}: WHEP answered ${res.status}: ${reason}`);
    }
    session = new URL(res.headers.get('location'), res.url).toString();
    await pc.setRemoteDescription({ type: 'answer', sdp: text });
  } catch (e) {
    close();
    throw e;
  }
  return { pc, stream, close };
}

function LiveVideo({ uid, stream, pc }) {
  const ref = useRef(null);
  const [state, setState] = useState(pc.connectionState);
  useEffect(() => {
    if (ref.current) ref.current.srcObject = stream;
    const onState = () => setState(pc.connectionState);
    pc.addEventListener('connectionstatechange', onState);
    return () => pc.removeEventListener('connectionstatechange', onState);
  }, [stream, pc]);
  return html`<figure data-live=${uid} data-state=${state}>
    <video ref=${ref} autoplay muted playsinline controls data-player="live"></video>
    <figcaption>uid ${uid} <span class="muted small">live, ${state}</span></figcaption>
  </figure>`;
}

/** Every publisher of the channel now, one WHEP view each; closed (and their sessions left) when it unmounts. */
export function LiveView({ api, cname }) {
  const [views, setViews] = useState([]);
  const [error, setError] = useState(null);
  useEffect(() => {
    let gone = false;
    const opened = [];
    (async () => {
      const { channels } = await api.channels();
      const channel = channels.find((c) => c.cname === cname);
      const publishers = (channel?.participants ?? []).filter((p) => p.tracks.length > 0);
      if (publishers.length === 0) throw new Error('Nobody publishes in this channel now.');
      const uid = viewerUid();
      const { token } = await api.viewerToken(cname, uid);
      const { iceServers } = await api.iceServers(cname, uid);
      for (const p of publishers) {
        if (gone) return;
        const view = await watch({ appId: api.appId, cname, profile: channel.profile, uid, token, iceServers, publisher: p.uid });
        if (gone) return view.close();
        opened.push(view);
        setViews((list) => [...list, { uid: p.uid, ...view }]);
      }
    })().catch((e) => !gone && setError(e.message));
    return () => {
      gone = true;
      for (const v of opened) v.close();
    };
  }, [api, cname]);
  return html`<div id="live">
    ${error ? html`<p class="error small">${error}</p>` : null}
    ${views.length === 0 && !error ? html`<p class="muted small">Connecting…</p>` : null}
    <div class="players">${views.map((v) => html`<${LiveVideo} key=${v.uid} uid=${v.uid} stream=${v.stream} pc=${v.pc} />`)}</div>
  </div>`;
}
