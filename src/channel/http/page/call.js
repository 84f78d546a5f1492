// The reeltime call page: publish camera + microphone over WHIP, watch every other publisher over WHEP.
// State for people and tests lives in window.reeltime.
const $ = (id) => document.getElementById(id);
const state = { joined: false, appId: '', uid: 0, cname: '', token: '', profile: 'communication', publish: null, remotes: {} };
window.reeltime = state;

function status(text, error = false) {
  $('status').textContent = text;
  $('status').className = error ? 'error' : '';
}

async function devToken(cname, uid) {
  const res = await fetch('/rtc/v1/dev/token', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ cname, uid, role: 'publisher' }),
  });
  const body = await res.json();
  if (!res.ok) throw new Error(body.reason || `token endpoint: HTTP ${res.status}`);
  return body;
}

function gathered(pc) {
  if (pc.iceGatheringState === 'complete') return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => pc.iceGatheringState === 'complete' && resolve();
    pc.addEventListener('icegatheringstatechange', done);
    setTimeout(resolve, 2000); // loopback gathering is quick; never hang on it
  });
}

/** One WHIP or WHEP exchange: POST the offer, apply the answer; returns the session URL. */
async function exchange(pc, url) {
  await pc.setLocalDescription(await pc.createOffer());
  await gathered(pc);
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/sdp', authorization: `Bearer ${state.token}` },
    body: pc.localDescription.sdp,
  });
  const text = await res.text();
  if (res.status !== 201) {
    let reason = text;
    try { reason = JSON.parse(text).reason; } catch {}
    throw new Error(`HTTP ${res.status}: ${reason}`);
  }
  await pc.setRemoteDescription({ type: 'answer', sdp: text });
  // Relative to where the POST ended up: another channel node when this one redirected it.
  return new URL(res.headers.get('location'), res.url).toString();
}

/**
 * An ICE restart over PATCH (RFC 9725 section 4.3.2), for a path to the node that broke (a new network, a NAT that
 * rebound): the browser's new credentials and candidates go to the session as a fragment with `If-Match: *`, and
 * the node's new ones replace those of its answer. The session, its tracks and the recording of them go on.
 */
async function restartIce(peer) {
  const { pc } = peer;
  pc.restartIce();
  await pc.setLocalDescription(await pc.createOffer());
  await gathered(pc);
  const offer = pc.localDescription.sdp;
  const value = (sdp, name) => (sdp.match(new RegExp(`a=${name}:(\\S+)`)) || [])[1];
  const candidates = (sdp) => [...new Set(sdp.split(/\r?\n/).filter((l) => l.startsWith('a=candidate:')))];
  const frag = [
    `a=ice-ufrag:${value(offer, 'ice-ufrag')}`,
    `a=ice-pwd:${value(offer, 'ice-pwd')}`,
    'm=audio 9 UDP/TLS/RTP/SAVPF 0',
    `a=mid:${value(offer, 'mid')}`,
    ...candidates(offer),
    'a=end-of-candidates',
  ].join('\r\n');
  const res = await fetch(peer.session, {
    method: 'PATCH',
    headers: { 'content-type': 'application/trickle-ice-sdpfrag', 'if-match': '*' },
    body: `${frag}\r\n`,
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`ICE restart: HTTP ${res.status}: ${text}`);
  const ufrag = value(text, 'ice-ufrag');
  const pwd = value(text, 'ice-pwd');
  const nodeCandidates = candidates(text);
  const answer = pc.remoteDescription.sdp
    .split('\r\n')
    .filter((l) => !l.startsWith('a=candidate:') && l !== 'a=end-of-candidates')
    .flatMap((l) => {
      if (l.startsWith('a=ice-ufrag:')) return [`a=ice-ufrag:${ufrag}`];
      if (l.startsWith('a=ice-pwd:')) return [`a=ice-pwd:${pwd}`, ...nodeCandidates];
      return [l];
    })
    .join('\r\n');
  await pc.setRemoteDescription({ type: 'answer', sdp: answer });
  peer.restarts = (peer.restarts ?? 0) + 1;
}

/** Restarts ICE when the path to the node breaks (consent lost), at most once every 5 s. */
function keepPath(peer) {
  let last = 0;
  peer.pc.addEventListener('iceconnectionstatechange', () => {
    const s = peer.pc.iceConnectionState;
    if ((s !== 'disconnected' && s !== 'failed') || peer.pc.signalingState !== 'stable' || Date.now() - last < 5000) return;
    last = Date.now();
    restartIce(peer).catch((e) => status(e.message, true));
  });
}

/**
 * The peer connection settings: the node's TURN servers with this user's credentials (fetched before the offer,
 * so relay candidates are in it), and `?relay=1` in the page's address to use only them (a network that blocks
 * UDP to the node, or a test of TURN).
 */
async function peerConfig() {
  const q = `uid=${state.uid}&token=${encodeURIComponent(state.token)}`;
  const res = await fetch(`/rtc/v1/apps/${state.appId}/channels/${encodeURIComponent(state.cname)}/ice-servers?${q}`);
  const body = await res.json();
  if (!res.ok) throw new Error(body.reason || `ice servers: HTTP ${res.status}`);
  const relay = params.get('relay') === '1';
  if (relay && body.iceServers.length === 0) throw new Error('?relay=1: this node hands out no TURN server (channel.turnUrls)');
  return { iceServers: body.iceServers, iceTransportPolicy: relay ? 'relay' : 'all' };
}

function endpoint(kind, extra = '') {
  // The token also rides in the query: a browser drops the Authorization header when a 307 sends the POST to the
  // channel node that hosts the channel (another origin).
  const q = `uid=${state.uid}&profile=${state.profile}&token=${encodeURIComponent(state.token)}${extra}`;
  return `/rtc/v1/apps/${state.appId}/channels/${encodeURIComponent(state.cname)}/${kind}?${q}`;
}

/**
 * `?codec=h264` or `?codec=vp8`: that codec first in the offer, so the node (which takes the publisher's first
 * forwardable video codec) records and forwards it. H.264 in packetization mode 1 only, the mode the node forwards.
 */
function preferVideoCodec(transceiver, name) {
  const all = RTCRtpSender.getCapabilities('video')?.codecs ?? [];
  const wanted = all.filter(
    (c) => c.mimeType.toLowerCase() === `video/${name.toLowerCase()}` && (name.toLowerCase() !== 'h264' || /packetization-mode=1/.test(c.sdpFmtpLine ?? '')),
  );
  if (wanted.length === 0) throw new Error(`?codec=${name}: this browser cannot send it`);
  transceiver.setCodecPreferences([...wanted, ...all.filter((c) => !wanted.includes(c))]);
}

/** The two encodings of the simulcast switch, lowest first (the order Chromium's own tests use). */
const SIMULCAST_ENCODINGS = [
  { rid: 'l', scaleResolutionDownBy: 2, maxBitrate: 300_000 },
  { rid: 'h', maxBitrate: 1_200_000 },
];

async function publish() {
  const codec = params.get('codec');
  if (codec && !['vp8', 'h264'].includes(codec.toLowerCase())) throw new Error(`?codec=${codec}: must be vp8 or h264`);
  const media = await navigator.mediaDevices.getUserMedia({ audio: true, video: { width: 640, height: 360 } });
  if (selfView) $('localVideo').srcObject = media;
  const pc = new RTCPeerConnection(state.peerConfig);
  for (const track of media.getTracks()) {
    // Simulcast: the full picture and one at half its size (rid `h`, `l`); the node forwards one per viewer.
    const encodings = track.kind === 'video' && $('simulcast').checked ? SIMULCAST_ENCODINGS : undefined;
    const transceiver = pc.addTransceiver(track, { direction: 'sendonly', streams: [media], ...(encodings ? { sendEncodings: encodings } : {}) });
    if (track.kind === 'video' && codec) preferVideoCodec(transceiver, codec);
  }
  const session = await exchange(pc, endpoint('whip'));
  state.publish = { pc, session, media };
  pc.addEventListener('connectionstatechange', () => (state.publish && (state.publish.state = pc.connectionState)));
  keepPath(state.publish);
}

async function watch(uid) {
  if (uid === state.uid || state.remotes[uid]) return;
  const fig = document.createElement('figure');
  fig.id = `remote-${uid}`;
  const video = document.createElement('video');
  video.autoplay = true;
  video.playsInline = true;
  video.muted = true; // autoplay policy; unmute by clicking the tile
  fig.append(video, Object.assign(document.createElement('figcaption'), { textContent: `uid ${uid}` }));
  fig.addEventListener('click', () => (video.muted = !video.muted));
  $('tiles').append(fig);
  const pc = new RTCPeerConnection(state.peerConfig);
  pc.addTransceiver('audio', { direction: 'recvonly' });
  pc.addTransceiver('video', { direction: 'recvonly' });
  const stream = new MediaStream();
  pc.addEventListener('track', (e) => {
    stream.addTrack(e.track);
    video.srcObject = stream;
  });
  const remote = { pc, video, session: null };
  state.remotes[uid] = remote;
  try {
    // `layer`: which encoding of a simulcast publisher to get (the others send one anyway).
    remote.session = await exchange(pc, endpoint('whep', `&publisher=${uid}&layer=${$('layer').value}`));
    keepPath(remote);
  } catch (e) {
    status(`cannot watch uid ${uid}: ${e.message}`, true);
    unwatch(uid);
  }
}

function unwatch(uid) {
  const r = state.remotes[uid];
  if (!r) return;
  delete state.remotes[uid];
  r.pc.close();
  if (r.session) fetch(r.session, { method: 'DELETE' }).catch(() => {});
  $(`remote-${uid}`)?.remove();
}

function follow() {
  const q = `uid=${state.uid}&token=${encodeURIComponent(state.token)}`;
  const es = new EventSource(`/rtc/v1/apps/${state.appId}/channels/${encodeURIComponent(state.cname)}/events?${q}`);
  es.addEventListener('snapshot', (e) => {
    for (const p of JSON.parse(e.data).participants) if (p.tracks.length) watch(p.uid);
  });
  es.addEventListener('publish', (e) => watch(JSON.parse(e.data).uid));
  es.addEventListener('unpublish', (e) => unwatch(JSON.parse(e.data).uid));
  state.events = es;
}

async function join(ev) {
  ev?.preventDefault();
  $('joinBtn').disabled = true;
  try {
    state.cname = $('channel').value;
    state.uid = Number($('uid').value);
    state.profile = $('profile').value;
    if ($('token').value) {
      state.token = $('token').value;
      state.appId = params.get('appId') || '';
      if (!state.appId) throw new Error('with your own token, open the page with ?appId=...');
    } else {
      const t = await devToken(state.cname, state.uid);
      state.token = t.token;
      state.appId = t.appId;
    }
    state.peerConfig = await peerConfig();
    await publish();
    follow();
    state.joined = true;
    $('leaveBtn').disabled = false;
    status(`in channel "${state.cname}" as uid ${state.uid}`);
  } catch (e) {
    status(e.message, true);
    $('joinBtn').disabled = false;
  }
}

async function leave() {
  state.events?.close();
  for (const uid of Object.keys(state.remotes)) unwatch(Number(uid));
  if (state.publish) {
    state.publish.media.getTracks().forEach((t) => t.stop());
    state.publish.pc.close();
    await fetch(state.publish.session, { method: 'DELETE' }).catch(() => {});
    state.publish = null;
  }
  state.joined = false;
  $('joinBtn').disabled = false;
  $('leaveBtn').disabled = true;
  status('left');
}

// The page's query, read once (the functions above run after this).
const params = new URLSearchParams(location.search);
// `selfview=0`: no picture of one's own camera (and no drawing of it: a headless or kiosk page saves that CPU).
const selfView = params.get('selfview') !== '0';
$('channel').value = params.get('channel') || 'demo';
$('uid').value = params.get('uid') || String(1000 + Math.floor(Math.random() * 9000));
if (params.get('profile')) $('profile').value = params.get('profile');
$('simulcast').checked = params.get('simulcast') === '1';
if (params.get('layer')) $('layer').value = params.get('layer');
$('local').hidden = !selfView;
$('join').addEventListener('submit', join);
$('leaveBtn').addEventListener('click', leave);
addEventListener('pagehide', () => state.joined && leave());
if (params.get('autojoin') === '1') join();
