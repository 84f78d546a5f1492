/**
 * A recording API client over a real loopback socket (node:http), for requests `inject` and `fetch` cannot send
 * as clients do: GET with a body, exact Content-Type headers, bodies sent as given, oversized uploads.
 */
import http from 'node:http';
import { TEST_APP_ID, TEST_AUTH } from './client.ts';

export interface RawResponse {
  readonly status: number;
  readonly text: string;
  readonly body: Record<string, unknown>;
}

export interface RawRequest {
  readonly method?: 'GET' | 'POST';
  /** Sent as is when a string, as JSON otherwise; no body when absent. */
  readonly body?: unknown;
  /** Content-Type header; `null` sends none. Default `application/json`. */
  readonly contentType?: string | null;
}

/** Sends one request to `baseUrl + path` and reads the whole answer; a socket error rejects. */
export function rawRequest(baseUrl: string, path: string, r: RawRequest = {}): Promise<RawResponse> {
  const payload = r.body === undefined ? undefined : typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
  const headers: Record<string, string> = { authorization: TEST_AUTH };
  const contentType = r.contentType === undefined ? 'application/json' : r.contentType;
  if (contentType !== null) headers['content-type'] = contentType;
  if (payload !== undefined) headers['content-length'] = String(Buffer.byteLength(payload));
  return new Promise((resolve, reject) => {
    const req = http.request(`${baseUrl}${path}`, { method: r.method ?? 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: Record<string, unknown>;
        try {
          body = JSON.parse(text) as Record<string, unknown>;
        } catch {
          body = { raw: text };
        }
        resolve({ status: res.statusCode ?? 0, text, body });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** Paths of the recording API of the test app. */
export function recordingPaths(appId = TEST_APP_ID) {
  const base = `/v1/apps/${appId}/cloud_recording`;
  const session = (rid: string, sid: string, mode: string) => `${base}/resourceid/${rid}/sid/${sid}/mode/${mode}`;
  return {
    acquire: `${base}/acquire`,
    start: (rid: string, mode: string) => `${base}/resourceid/${rid}/mode/${mode}/start`,
    query: (rid: string, sid: string, mode: string) => `${session(rid, sid, mode)}/query`,
    update: (rid: string, sid: string, mode: string) => `${session(rid, sid, mode)}/update`,
    updateLayout: (rid: string, sid: string, mode: string) => `${session(rid, sid, mode)}/updateLayout`,
    stop: (rid: string, sid: string, mode: string) => `${session(rid, sid, mode)}/stop`,
  };
}
