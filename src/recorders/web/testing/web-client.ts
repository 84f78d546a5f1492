/** The recording API in web mode over HTTP (acquire with scene 1, then start/query/update/stop under `mode/web`). */
import { APP, type Harness } from '../../individual/testing/harness.ts';

export interface WebClient {
  start(cname: string, uid: string, clientRequest: Record<string, unknown>): Promise<{ resourceId: string; sid: string }>;
  path(resourceId: string, sid: string, op: string): string;
}

export function webClient(api: Harness['api']): WebClient {
  const base = `/v1/apps/${APP}/cloud_recording`;
  return {
    async start(cname, uid, clientRequest) {
      const acq = await api('POST', `${base}/acquire`, { cname, uid, clientRequest: { scene: 1 } });
      if (acq.status !== 200) throw new Error(`acquire: ${acq.status} ${JSON.stringify(acq.body)}`);
      const resourceId = String(acq.body.resourceId);
      const st = await api('POST', `${base}/resourceid/${encodeURIComponent(resourceId)}/mode/web/start`, { cname, uid, clientRequest });
      if (st.status !== 200) throw new Error(`start: ${st.status} ${JSON.stringify(st.body)}`);
      return { resourceId, sid: String(st.body.sid) };
    },
    path: (rid, sid, op) => `${base}/resourceid/${encodeURIComponent(rid)}/sid/${sid}/mode/web/${op}`,
  };
}

/** A `web_recorder_service` entry with small, cheap output settings. */
export function webService(url: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    serviceName: 'web_recorder_service',
    errorHandlePolicy: 'error_abort',
    serviceParam: { url, audioProfile: 0, videoWidth: 640, videoHeight: 360, maxRecordingHour: 1, videoFps: 15, ...extra },
  };
}
