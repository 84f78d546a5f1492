/** Test helpers: a Basic-auth client over Fastify inject, and valid bodies per mode. */
import type { FastifyInstance } from 'fastify';
import { TEST_CUSTOMER_AUTH } from '../../testing/index.ts';

export const TEST_APP_ID = '970CA35de60c44645bbae8a215061b33';
export const TEST_AUTH = TEST_CUSTOMER_AUTH;

export interface Res {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

export function recordingClient(app: FastifyInstance, appId = TEST_APP_ID, auth = TEST_AUTH) {
  const base = `/v1/apps/${appId}/cloud_recording`;
  const call = async (method: 'GET' | 'POST', url: string, payload?: unknown): Promise<Res> => {
    const r = await app.inject({
      method,
      url,
      headers: { authorization: auth, ...(payload !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(payload !== undefined ? { payload: JSON.stringify(payload) } : {}),
    });
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(r.body) as Record<string, unknown>;
    } catch {
      body = { raw: r.body };
    }
    return { status: r.statusCode, body };
  };
  const s = (rid: string, sid: string, mode: string) => `${base}/resourceid/${encodeURIComponent(rid)}/sid/${sid}/mode/${mode}`;
  return {
    call,
    acquire: (body: unknown) => call('POST', `${base}/acquire`, body),
    start: (rid: string, mode: string, body: unknown) =>
      call('POST', `${base}/resourceid/${encodeURIComponent(rid)}/mode/${mode}/start`, body),
    query: (rid: string, sid: string, mode: string) => call('GET', `${s(rid, sid, mode)}/query`),
    update: (rid: string, sid: string, mode: string, body: unknown) => call('POST', `${s(rid, sid, mode)}/update`, body),
    updateLayout: (rid: string, sid: string, mode: string, body: unknown) =>
      call('POST', `${s(rid, sid, mode)}/updateLayout`, body),
    stop: (rid: string, sid: string, mode: string, body: unknown) => call('POST', `${s(rid, sid, mode)}/stop`, body),
  };
}

export type RecordingClient = ReturnType<typeof recordingClient>;

export const storage = () => ({
  vendor: 1,
  region: 0,
  bucket: 'test-bucket',
  accessKey: 'AKIATESTKEY',
  secretKey: 'super-secret-key-value',
  fileNamePrefix: ['rec', 'day1'],
});

/** A valid start clientRequest for each mode. */
export function startRequest(mode: 'individual' | 'mix' | 'web'): Record<string, unknown> {
  if (mode === 'individual') {
    return {
      storageConfig: storage(),
      recordingConfig: { channelType: 0, subscribeUidGroup: 0, maxIdleTime: 30 },
      recordingFileConfig: { avFileType: ['hls'] },
    };
  }
  if (mode === 'mix') {
    return {
      storageConfig: storage(),
      recordingConfig: { channelType: 1, transcodingConfig: { width: 640, height: 360, mixedVideoLayout: 1 } },
      recordingFileConfig: { avFileType: ['hls'] },
    };
  }
  return {
    storageConfig: storage(),
    recordingFileConfig: { avFileType: ['hls', 'mp4'] },
    extensionServiceConfig: {
      extensionServices: [
        {
          serviceName: 'web_recorder_service',
          serviceParam: { url: 'http://127.0.0.1:9/page', audioProfile: 0, videoWidth: 1280, videoHeight: 720, maxRecordingHour: 2 },
        },
      ],
    },
  };
}

