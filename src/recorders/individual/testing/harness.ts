/**
 * A whole reeltime with the real individual recorder, synthetic WHIP publishers, a signed-webhook receiver and
 * helpers to drive the recording API over HTTP.
 */
import type { JsonObject } from '../../../config/index.ts';
import { join } from 'node:path';
import { buildRtcTokenWithUid } from '@reeltime/token';
import { startSyntheticPublisher, type SfuTestHooks, type SyntheticPublisher, type SyntheticPublisherOptions } from '../../../channel/index.ts';
import type { Clock } from '../../../clock/index.ts';
import type { RecorderTestHooks } from '../../index.ts';
import { startTestServer, startWebhookReceiver, TEST_CUSTOMER_AUTH, type TestDatabase, type TestServer } from '../../../testing/index.ts';

export const APP = '970CA35de60c44645bbae8a215061b33';
export const CERT = '5CFd2fd1755d40ecb72977518be15d3b';
export const AUTH = TEST_CUSTOMER_AUTH;
export const BUCKET = 'test-bucket';
export const PREFIX = ['rec', 'ind'];
const WEBHOOK_SECRET = 'webhook-test-secret';

export function rtcToken(cname: string, uid: number, role: 1 | 2 = 1, expireSec = 3600, nowMs?: number): string {
  void nowMs;
  return buildRtcTokenWithUid(APP, CERT, cname, uid, role, expireSec, expireSec);
}

export interface WebhookEvent {
  readonly eventType: number;
  readonly payload: { sid: string; sequence: number; serviceType: number; details: { msgName: string; [k: string]: unknown } };
  readonly signed: boolean;
}

export interface Harness {
  readonly server: TestServer;
  readonly events: WebhookEvent[];
  readonly bucketDir: string;
  publish(opts: {
    cname: string;
    uid: number;
    color: string;
    toneHz: number;
    codec?: 'vp8' | 'h264';
    profile?: 'communication' | 'live';
    width?: number;
    height?: number;
    toneTurns?: { periodSec: number; half: 'first' | 'second' };
    /** Its sender reports put its clock this far ahead of ours. */
    senderClockOffsetMs?: number;
    /**
     * Default `replay` (media encoded once and paced out, which keeps real time on a loaded machine; every test file
     * with harness publishers passed with it), or what REELTIME_TEST_PUBLISHERS says: `live` brings back an ffmpeg
     * encoder per publisher for the publishers that do not ask for a mode.
     */
    mode?: SyntheticPublisherOptions['mode'];
  }): Promise<SyntheticPublisher>;
  api(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }>;
  startRecording(cname: string, uid: string, clientRequest: Record<string, unknown>, scene?: number): Promise<{ resourceId: string; sid: string }>;
  path(resourceId: string, sid: string, op: string): string;
  close(): Promise<void>;
}

export interface HarnessOptions {
  readonly clock?: Clock;
  readonly dataDir?: string;
  readonly database?: TestDatabase;
  /** Extra `storage` config section (e.g. a vendor endpoint override pointing at s3rver). */
  readonly storage?: JsonObject;
  /** Recording mode the API calls use (default `individual`). */
  readonly mode?: 'individual' | 'mix';
  /** More recording settings (file keys of the "recording" section), e.g. web mode's short test slices. */
  readonly recording?: Readonly<Record<string, unknown>>;
  /** Channel settings (file keys of the "channel" section), e.g. a longer idle timeout for heavy tests. */
  readonly channel?: JsonObject;
  /** Fault injection in the channel's SFU: a replaced WHEP answer, a session ended as the node would end it. */
  readonly sfuTestHooks?: SfuTestHooks;
  /** Fault injection in the recorders: a slicer's ffmpeg killed as a crash would. */
  readonly recorderTestHooks?: RecorderTestHooks;
  /** More environment settings (e.g. REELTIME_INGRESS_RTMP_PORT). */
  readonly env?: Readonly<Record<string, string>>;
  /** Every log line of the server (level info and up) is pushed here: for checks of what it logs. */
  readonly logLines?: string[];
}

export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const hook = await startWebhookReceiver<Omit<WebhookEvent, 'signed'>>(WEBHOOK_SECRET);
  const server = await startTestServer({
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.dataDir ? { dataDir: opts.dataDir } : {}),
    ...(opts.database ? { database: opts.database } : {}),
    ...(opts.sfuTestHooks ? { sfuTestHooks: opts.sfuTestHooks } : {}),
    ...(opts.recorderTestHooks ? { recorderTestHooks: opts.recorderTestHooks } : {}),
    ...(opts.logLines ? { logLines: opts.logLines } : {}),
    // REELTIME_TEST_MEDIA_PATH=whep runs the recorder tests over loopback WHEP instead of the in-process tap.
    values: {
      recording: {
        rateLimitPerSecond: 0,
        ...(process.env.REELTIME_TEST_MEDIA_PATH ? { mediaPath: process.env.REELTIME_TEST_MEDIA_PATH } : {}),
        ...opts.recording,
      },
      ...(opts.storage ? { storage: opts.storage } : {}),
      ...(opts.channel ? { channel: opts.channel } : {}),
    },
    env: { ...hook.env, ...opts.env },
  });
  const publishers: SyntheticPublisher[] = [];
  const client = recordingClient(server.url, opts.mode);
  return {
    server,
    events: hook.events,
    bucketDir: join(server.dataDir, 'bucket', BUCKET),
    async publish(p) {
      const pub = await startSyntheticPublisher({
        baseUrl: server.url,
        appId: APP,
        cname: p.cname,
        uid: p.uid,
        token: rtcToken(p.cname, p.uid),
        color: p.color,
        toneHz: p.toneHz,
        codec: p.codec ?? 'vp8',
        ...(p.profile ? { profile: p.profile } : {}),
        ...(p.width ? { width: p.width } : {}),
        ...(p.height ? { height: p.height } : {}),
        ...(p.toneTurns ? { toneTurns: p.toneTurns } : {}),
        ...(p.senderClockOffsetMs !== undefined ? { senderClockOffsetMs: p.senderClockOffsetMs } : {}),
        mode: p.mode ?? (process.env.REELTIME_TEST_PUBLISHERS === 'live' ? 'live' : 'replay'),
      });
      publishers.push(pub);
      await pub.ready;
      return pub;
    },
    ...client,
    async close() {
      await Promise.all(publishers.map((p) => p.stop().catch(() => undefined)));
      await server.close();
      await hook.close();
    },
  };
}

export type RecordingClient = Pick<Harness, 'api' | 'startRecording' | 'path'>;

/** The recording API of the reeltime at `baseUrl` over HTTP in one mode, as the test customer (also for servers in child processes). */
export function recordingClient(baseUrl: string, mode: 'individual' | 'mix' = 'individual'): RecordingClient {
  const api: Harness['api'] = async (method, path, body) => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: AUTH, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(text) as Record<string, unknown>;
    } catch {
      parsed = { raw: text };
    }
    return { status: res.status, body: parsed };
  };
  const base = `/v1/apps/${APP}/cloud_recording`;
  return {
    api,
    async startRecording(cname, uid, clientRequest, scene) {
      const acq = await api('POST', `${base}/acquire`, { cname, uid, clientRequest: scene !== undefined ? { scene } : {} });
      if (acq.status !== 200) throw new Error(`acquire: ${acq.status} ${JSON.stringify(acq.body)}`);
      const resourceId = String(acq.body.resourceId);
      const st = await api('POST', `${base}/resourceid/${encodeURIComponent(resourceId)}/mode/${mode}/start`, { cname, uid, clientRequest });
      if (st.status !== 200) throw new Error(`start: ${st.status} ${JSON.stringify(st.body)}`);
      return { resourceId, sid: String(st.body.sid) };
    },
    path: (rid, sid, op) => `${base}/resourceid/${encodeURIComponent(rid)}/sid/${sid}/mode/${mode}/${op}`,
  };
}

export function storageConfig(): Record<string, unknown> {
  return { vendor: 1, region: 0, bucket: BUCKET, accessKey: 'AKIATESTKEY', secretKey: 'test-secret-key', fileNamePrefix: PREFIX };
}

/**
 * A synthetic publisher, connected. werift's DTLS handshake can stall when retransmissions cross on a heavily
 * loaded machine (the peer then stays "connecting"): such an attempt is dropped and the next one made.
 */
export async function connectedPublisher(options: SyntheticPublisherOptions, attempts = 3): Promise<SyntheticPublisher> {
  for (let attempt = 1; ; attempt++) {
    const pub = await startSyntheticPublisher(options);
    try {
      await pub.ready;
      return pub;
    } catch (e) {
      await pub.stop().catch(() => undefined);
      if (attempt >= attempts) throw e;
    }
  }
}
