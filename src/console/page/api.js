// Every call the console makes: the public recording, sessions, channel, ingress and recording-rule APIs with the signed-in credentials.

export class ApiError extends Error {
  constructor(status, body) {
    super(typeof body === 'object' && body ? body.reason ?? body.message ?? `HTTP ${status}` : `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

export function createApi({ appId, customerId, customerSecret }) {
  const auth = `Basic ${btoa(`${customerId}:${customerSecret}`)}`;
  const rec = `/v1/apps/${encodeURIComponent(appId)}/cloud_recording`;
  async function call(method, path, body) {
    const res = await fetch(path, {
      method,
      headers: { authorization: auth, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    let parsed;
    try {
      parsed = text ? JSON.parse(text) : {};
    } catch {
      parsed = text;
    }
    if (!res.ok) throw new ApiError(res.status, parsed);
    return parsed;
  }
  /**
   * reeltime's track-stats event stream (text/event-stream read with fetch: EventSource cannot send the Basic
   * credentials). Calls onSample with each `tracks` event until `signal` aborts; resolves when the stream ends.
   */
  async function trackStats(onSample, signal) {
    const res = await fetch(`/rtc/v1/apps/${encodeURIComponent(appId)}/track-stats`, { headers: { authorization: auth }, signal });
    if (!res.ok || !res.body) throw new ApiError(res.status, await res.text());
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += value;
      let i;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, i);
        buf = buf.slice(i + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1];
        const data = block.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n');
        if (event === 'tracks' && data) onSample(JSON.parse(data));
      }
    }
  }
  const channel = (cname) => `/rtc/v1/apps/${encodeURIComponent(appId)}/channels/${encodeURIComponent(cname)}`;
  const session = (rid, sid, mode) => `${rec}/resourceid/${encodeURIComponent(rid)}/sid/${sid}/mode/${mode}`;
  return {
    appId,
    recordingBase: rec,
    sessions: (params) => call('GET', `${rec}/sessions?${new URLSearchParams(params)}`),
    session: (sid) => call('GET', `${rec}/sessions/${encodeURIComponent(sid)}`),
    acquire: (body) => call('POST', `${rec}/acquire`, body),
    start: (rid, mode, body) => call('POST', `${rec}/resourceid/${encodeURIComponent(rid)}/mode/${mode}/start`, body),
    update: (rid, sid, mode, body) => call('POST', `${session(rid, sid, mode)}/update`, body),
    updateLayout: (rid, sid, mode, body) => call('POST', `${session(rid, sid, mode)}/updateLayout`, body),
    stop: (rid, sid, mode, body) => call('POST', `${session(rid, sid, mode)}/stop`, body),
    channels: () => call('GET', `/rtc/v1/apps/${encodeURIComponent(appId)}/channels`),
    ingresses: () => call('GET', `/v1/apps/${encodeURIComponent(appId)}/ingress`),
    createIngress: (body) => call('POST', `/v1/apps/${encodeURIComponent(appId)}/ingress`, body),
    deleteIngress: (id) => call('DELETE', `/v1/apps/${encodeURIComponent(appId)}/ingress/${encodeURIComponent(id)}`),
    rules: () => call('GET', `/v1/apps/${encodeURIComponent(appId)}/recording-rules`),
    rule: (id) => call('GET', `/v1/apps/${encodeURIComponent(appId)}/recording-rules/${encodeURIComponent(id)}`),
    createRule: (body) => call('POST', `/v1/apps/${encodeURIComponent(appId)}/recording-rules`, body),
    deleteRule: (id) => call('DELETE', `/v1/apps/${encodeURIComponent(appId)}/recording-rules/${encodeURIComponent(id)}`),
    trackStats,
    /** A subscriber token for the live view (reeltime's extension; the customer's credentials). */
    viewerToken: (cname, uid) => call('POST', `${channel(cname)}/viewer-token`, { uid }),
    /** The node's TURN servers for that viewer (none on a node without channel.turnUrls). */
    iceServers: (cname, uid) => call('GET', `${channel(cname)}/ice-servers?uid=${uid}`),
    /** Development only: the stand-in token server of /rtc/ (POST /rtc/v1/dev/token). */
    devToken: (cname, uid) => call('POST', '/rtc/v1/dev/token', { cname, uid, role: 'subscriber' }),
  };
}
