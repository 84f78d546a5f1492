/**
 * Test kit for queue-backed dispatch with real processes: one PostgreSQL schema and one Redis prefix per test, a
 * shared bucket dir, a signed-webhook receiver, `reeltime` processes in any role.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSyntheticPublisher, type SyntheticPublisher } from '../../../channel/index.ts';
import { APP, BUCKET, rtcToken, storageConfig, type RecordingClient } from '../../../recorders/individual/testing/harness.ts';
import { deleteTestKeys, requireTestRedis, TEST_REDIS_URL, testRedisPrefix } from '../../../redis/testing.ts';
import { openTestDatabase, startServerProcess, startWebhookReceiver, TEST_PG_URL, type ServerProcess, type TestDatabase } from '../../../testing/index.ts';

const WEBHOOK_SECRET = 'cluster-webhook-secret';

export interface ReceivedWebhook {
  readonly noticeId: string;
  readonly eventType: number;
  readonly payload: { readonly sid: string; readonly sequence: number; readonly sendts: number; readonly details: { readonly msgName: string; readonly [k: string]: unknown } };
  readonly signed: boolean;
}

export interface Cluster {
  readonly db: TestDatabase;
  readonly root: string;
  readonly bucketDir: string;
  readonly webhooks: ReceivedWebhook[];
  /** Leaves webhooks unanswered while on (their senders wait); off answers them (src/testing/webhook-receiver.ts). */
  holdWebhooks(on: boolean): void;
  /** The DATABASE_URL and REDIS_URL every process gets unless told otherwise (e.g. through a proxy). */
  readonly databaseUrl: string;
  readonly redisUrl: string;
  /** A `reeltime` process: `args` [] runs every role; `dataDir` shared by processes that share a work volume. */
  start(args: readonly string[], opts?: { dataDir?: string; env?: Record<string, string> }): Promise<ServerProcess>;
  publish(baseUrl: string, cname: string, uid: number): Promise<SyntheticPublisher>;
  close(): Promise<void>;
}

/** Starts an individual-mode session recording audio and video as HLS, the tests' common case. */
export function startIndividualHls(client: RecordingClient, cname: string, uid: string): Promise<{ resourceId: string; sid: string }> {
  return client.startRecording(cname, uid, {
    token: rtcToken(cname, Number(uid), 2),
    storageConfig: storageConfig(),
    recordingConfig: { channelType: 0, subscribeUidGroup: 0, streamTypes: 2 },
    recordingFileConfig: { avFileType: ['hls'] },
  });
}

/** Slice length of individual and mix recordings in a test cluster (REELTIME_RECORDING_{INDIVIDUAL,MIX}_SLICE_SECONDS). */
export const CLUSTER_SLICE_SECONDS = 4;

export async function startCluster(env: Record<string, string> = {}): Promise<Cluster> {
  await requireTestRedis();
  const db = await openTestDatabase('postgres').catch((e: Error) => {
    throw new Error(`this test needs PostgreSQL at ${TEST_PG_URL}: ${e.message}`);
  });
  const prefix = testRedisPrefix();
  const root = mkdtempSync(join(tmpdir(), 'reeltime-cluster-'));
  const bucketRoot = join(root, 'bucket');
  const hook = await startWebhookReceiver<Omit<ReceivedWebhook, 'signed'>>(WEBHOOK_SECRET);
  const databaseUrl = `${TEST_PG_URL}?schema=${db.location.pgSchema}`;
  const redisUrl = env.REDIS_URL ?? TEST_REDIS_URL;
  const procs: ServerProcess[] = [];
  const publishers: SyntheticPublisher[] = [];
  let n = 0;
  return {
    db,
    root,
    bucketDir: join(bucketRoot, BUCKET),
    webhooks: hook.events,
    holdWebhooks: (on) => hook.hold(on),
    databaseUrl,
    redisUrl,
    async start(args, opts = {}) {
      const dataDir = opts.dataDir ?? join(root, `p${++n}`);
      mkdirSync(dataDir, { recursive: true });
      const p = await startServerProcess({
        dataDir,
        args,
        // Several Node processes starting at once on a busy shared machine: generous.
        readyTimeoutMs: 180_000,
        env: {
          DATABASE_URL: databaseUrl,
          REDIS_URL: TEST_REDIS_URL,
          REELTIME_REDIS_PREFIX: prefix,
          REELTIME_STORAGE_BUCKET_DIR: bucketRoot,
          REELTIME_RECORDING_RATE_LIMIT_PER_SECOND: '0',
          ...hook.env,
          // The test machine is shared and busy: admission by capacity only.
          REELTIME_RECORDING_DISPATCH_CPU_THRESHOLD_PERCENT: '100',
          // Recordings in 4 s slices, not 15 s: what these tests wait for ("a slice before the outage", "bak0_
          // slices after the take-over") comes in seconds. A test may set its own.
          REELTIME_RECORDING_INDIVIDUAL_SLICE_SECONDS: String(CLUSTER_SLICE_SECONDS),
          REELTIME_RECORDING_MIX_SLICE_SECONDS: String(CLUSTER_SLICE_SECONDS),
          ...env,
          ...opts.env,
        },
      });
      procs.push(p);
      return p;
    },
    async publish(baseUrl, cname, uid) {
      // werift's DTLS handshake can stall on a loaded machine: such an attempt is dropped and the next one made.
      for (let attempt = 1; ; attempt++) {
        const pub = await startSyntheticPublisher({
          baseUrl,
          appId: APP,
          cname,
          uid,
          token: rtcToken(cname, uid),
          color: 'red',
          toneHz: 440,
          codec: 'h264',
          width: 160,
          height: 120,
          fps: 10,
        });
        try {
          await pub.ready;
          publishers.push(pub);
          return pub;
        } catch (e) {
          await pub.stop().catch(() => undefined);
          if (attempt === 3) throw e;
        }
      }
    },
    async close() {
      await Promise.all(publishers.map((p) => p.stop().catch(() => undefined)));
      await Promise.all(procs.map((p) => p.close()));
      await hook.close();
      await db.close();
      await deleteTestKeys(prefix);
      rmSync(root, { recursive: true, force: true });
    },
  };
}
