// The recorder worker and the queue dispatcher in this process, on the test PostgreSQL and Redis, with a recorder
// double: acceptance, control over the bus, admission by capacity, and fencing once the lease is lost.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Queue } from 'bullmq';
import { ManualClock } from '../../../clock/index.ts';
import { createLogger } from '../../../log/index.ts';
import { openRedis, redisBus, type RedisConnection } from '../../../redis/index.ts';
import { deleteTestKeys, requireTestRedis, TEST_REDIS_URL, testRedisPrefix } from '../../../redis/testing.ts';
import { openTestDatabase, type TestDatabase, waitUntil } from '../../../testing/index.ts';
import { canonicalJson, createIssuedTask, finish, requestStop, RESOURCE_TTL_MS, startSession, type LiveTask } from '../../lifecycle/index.ts';
import { recordingTaskOf } from '../recording-task.ts';
import { TaskStore } from '../../store/index.ts';
import { startRequest } from '../../testing/client.ts';
import { validateStartClientRequest } from '../../validation/index.ts';
import type { Recorder, RecorderReport, RecordingTask } from '../types.ts';
import { fenceUploads } from '../../../recorders/common/output/index.ts';
import type { MixLayoutSettings } from '../../../media/mix/index.ts';
import { mixLayoutSettings } from '../settings/index.ts';
import { sendControl } from './control.ts';
import { QUEUE_NAME } from './protocol.ts';
import { createQueueDispatcher, LeaseStore, NoRecorderAccepted, startRecorderWorker, WorkerRegistry, type DispatchSettings } from './index.ts';
import type { Area } from '../../validation/types.ts';

const LEASE_MS = 9000;
const log = createLogger('silent');
let db: TestDatabase;
let redis: RedisConnection;
const prefix = testRedisPrefix();

before(async () => {
  await requireTestRedis();
  db = await openTestDatabase('postgres');
  redis = openRedis({ url: TEST_REDIS_URL, prefix }, log);
});
after(async () => {
  await redis?.close();
  await db?.close();
  await deleteTestKeys(prefix);
});

const settings = (over: Partial<DispatchSettings> = {}): DispatchSettings => ({
  acceptTimeoutMs: 5000,
  leaseMs: LEASE_MS,
  capacity: 10,
  costs: { individual: 2, mix: 5, web: 5 },
  cpuThresholdPercent: 100,
  ...over,
});

let n = 0;
/** A live task in the store, as `start` leaves it before the launch. */
async function liveTask(
  store: TaskStore,
  clock: ManualClock,
  placement: { region?: Area; excludeResourceIds?: string[] } = {},
): Promise<LiveTask> {
  const id = `r${++n}-${Date.now()}`;
  const now = clock.now();
  const issued = createIssuedTask({
    resourceId: id,
    appId: 'app',
    cname: `c${n}`,
    uid: '77',
    scene: 0,
    resourceExpiredHour: 72,
    region: 'region' in placement ? placement.region : 'EU',
    excludeResourceIds: placement.excludeResourceIds ?? [],
    startParameter: undefined,
    issuedAt: now,
    expiresAt: now + RESOURCE_TTL_MS,
  });
  await store.insert(issued, now);
  const cr = validateStartClientRequest(startRequest('individual'), 'individual', 0);
  const sid = String(n).padStart(32, '0');
  const live = startSession(issued, { appId: 'app', cname: `c${n}`, uid: '77', sid, mode: 'individual', clientRequest: cr, canonical: canonicalJson(cr) }, now).task;
  await store.save(live, now);
  return live as LiveTask;
}

interface Double {
  readonly recorder: Recorder;
  readonly tasks: RecordingTask[];
  readonly reports: RecorderReport[];
  readonly stops: number[];
  readonly updates: unknown[];
  readonly layouts: MixLayoutSettings[];
}
function recorderDouble(): Double {
  const d: Double = {
    tasks: [],
    reports: [],
    stops: [],
    updates: [],
    layouts: [],
    recorder: {
      mode: 'individual',
      async start(task, report) {
        d.tasks.push(task);
        d.reports.push(report);
        return {
          update: async (change) => void d.updates.push(change),
          updateLayout: async (layout) => void d.layouts.push(layout),
          stop: async () => {
            d.stops.push(1);
            return { uploadingStatus: 'uploaded', files: [], recordedAnything: false };
          },
        };
      },
    },
  };
  return d;
}

/** Reports the worker forwarded to the control plane. */
function reportLog(): { calls: string[]; reportFor: () => RecorderReport } {
  const calls: string[] = [];
  const report: RecorderReport = {
    status: (s) => void calls.push(`status ${s}`),
    files: () => void calls.push('files'),
    sliceStartTime: () => void calls.push('sliceStartTime'),
    event: (t) => void calls.push(`event ${t}`),
    ended: () => void calls.push('ended'),
  };
  return { calls, reportFor: () => report };
}


/** The session's job was offered to the recorders and refused by them: BullMQ holds it delayed for another try. */
async function refusedJob(sid: string): Promise<boolean> {
  const queue = new Queue(QUEUE_NAME, { connection: { url: TEST_REDIS_URL }, prefix: `${prefix}bull` });
  try {
    return (await (await queue.getJob(sid))?.isDelayed()) === true;
  } finally {
    await queue.close();
  }
}

function setup(over: Partial<DispatchSettings> = {}, withWorker = true) {
  const clock = new ManualClock();
  const store = new TaskStore(db.db);
  const leases = new LeaseStore(db.db);
  const bus = redisBus(redis);
  const common = { redisUrl: TEST_REDIS_URL, redisPrefix: prefix, bus, clock, log, settings: settings(over), leases, workers: new WorkerRegistry(redis) };
  const dispatcher = createQueueDispatcher({ ...common, modes: ['individual'] });
  const double = recorderDouble();
  const reports = reportLog();
  const worker = withWorker ? startRecorderWorker({ ...common, store, recorders: [double.recorder], reportFor: reports.reportFor }) : undefined;
  const extra: { close(): Promise<void> }[] = [];
  return {
    clock,
    store,
    leases,
    dispatcher,
    double,
    reports,
    /** Another recorder process on the same queue, serving `region`. */
    bus,
    addWorker(region: Area | undefined, rejoinToken?: (appId: string, cname: string, uid: string) => string | undefined) {
      const other = recorderDouble();
      const w = startRecorderWorker({ ...common, store, recorders: [other.recorder], reportFor: reports.reportFor, region, rejoinToken });
      extra.push(w);
      return { double: other, holder: w.holder };
    },
    async close() {
      for (const w of extra) await w.close();
      await worker?.close();
      await dispatcher.close();
    },
  };
}

test('region and excludeResourceIds: a session goes only to a recorder that fits; when none does, start is told which field', async () => {
  const s = setup({}, false);
  try {
    const eu = s.addWorker('EU');
    const na = s.addWorker('NA');
    const resource = (t: LiveTask) => t.resource;
    await waitUntil(async () => (await new WorkerRegistry(redis).live(s.clock.now())).length >= 2, { what: 'both recorders announced' });

    const first = await liveTask(s.store, s.clock, { region: 'EU' });
    await s.dispatcher.launch(recordingTaskOf(first, false), reportLog().reportFor());
    assert.deepEqual(eu.double.tasks.map((t) => t.sid), [first.session.sid], 'the EU session runs on the EU recorder');
    assert.equal(na.double.tasks.length, 0);
    assert.equal(await s.dispatcher.unplaceable!(resource(first)), undefined);

    // Excluding the first session's recorder leaves no EU recorder: start is refused before anything is queued.
    const second = await liveTask(s.store, s.clock, { region: 'EU', excludeResourceIds: [first.resource.resourceId] });
    assert.match(String(await s.dispatcher.unplaceable!(resource(second))), /^clientRequest\.excludeResourceIds \(acquire\): every recorder of region EU/);
    // Queued anyway (an API process that checked before the recorders changed): no recorder takes it.
    const refused = s.dispatcher.launch(recordingTaskOf(second, false), reportLog().reportFor());
    await waitUntil(() => refusedJob(second.session.sid), { intervalMs: 50, what: 'the job offered and refused' });
    s.clock.advance(5000);
    await assert.rejects(refused, NoRecorderAccepted);
    assert.deepEqual(eu.double.tasks.map((t) => t.sid), [first.session.sid], 'the excluded recorder never ran it');
    assert.equal(na.double.tasks.length, 0, 'nor did the recorder of another region');

    // The same exclusion in region NA: the NA recorder takes it.
    const third = await liveTask(s.store, s.clock, { region: 'NA', excludeResourceIds: [first.resource.resourceId] });
    await s.dispatcher.launch(recordingTaskOf(third, false), reportLog().reportFor());
    assert.deepEqual(na.double.tasks.map((t) => t.sid), [third.session.sid]);

    const nowhere = await liveTask(s.store, s.clock, { region: 'AP' });
    assert.equal(await s.dispatcher.unplaceable!(resource(nowhere)), 'clientRequest.region (acquire): no recorder serves region AP; the recorders serve EU, NA');
  } finally {
    await s.close();
  }
});

test('launch answers once the worker accepted; control reaches it; a lost lease fences it (no report, no upload) and stops it', async () => {
  const s = setup();
  try {
    const task = await liveTask(s.store, s.clock);
    const handle = await s.dispatcher.launch(recordingTaskOf(task, false), reportLog().reportFor());
    const rt = s.double.tasks[0]!;
    assert.equal(rt.sid, task.session.sid);
    assert.equal(rt.uid, '77');
    assert.equal(rt.fence?.holds(), true);
    assert.equal(await s.dispatcher.holds!(task.resource.resourceId), true);

    await handle.update({ audioUids: ['1'] } as never);
    assert.equal(s.double.updates.length, 1);
    // updateLayout travels as the complete layout; the request an API process of an earlier version sends is
    // translated on arrival by the same builder.
    const layout = mixLayoutSettings({ mixedVideoLayout: 1, backgroundColor: '#00ff00' });
    await handle.updateLayout!(layout);
    const request = { mixedVideoLayout: 2 as const, maxResolutionUid: '5' };
    assert.deepEqual(await sendControl(s.bus, s.clock, task.session.sid, { op: 'updateLayout', request }, 5000), { ok: true });
    assert.deepEqual(s.double.layouts, [layout, mixLayoutSettings(request)]);
    assert.deepEqual(s.double.layouts.map((l) => [l.kind, l.backgroundColor, l.maxResolutionUid]), [[1, '#00FF00', null], [2, '#000000', '5']]);
    const report = s.double.reports[0]!;
    report.status(5);
    assert.deepEqual(s.reports.calls, ['status 5']);

    // Another recorder took the session over (its lease, epoch 2): the next renewal fails and this one fences.
    await db.db
      .updateTable('recording_leases')
      .set({ epoch: 2, holder: 'other', expires_at: s.clock.now() + 10 * LEASE_MS })
      .where('resource_id', '=', task.resource.resourceId)
      .execute();
    s.clock.advance(LEASE_MS / 3);
    await waitUntil(() => s.double.stops.length === 1, { what: 'the fenced recorder is stopped' });
    assert.equal(rt.fence?.holds(), false);
    report.status(6);
    assert.deepEqual(s.reports.calls, ['status 5'], 'a fenced recorder reports nothing');
    const spooled: string[] = [];
    const upload = fenceUploads(
      {
        sid: rt.sid,
        objectKey: (f) => f,
        enqueue: async (_p, key) => (spooled.push(key), { ok: true, key, bytes: 1 }),
        updateStorage: async () => undefined,
        status: async () => ({ uploadingStatus: 'uploaded', pending: 0, uploaded: 0, pendingBytes: 0, progress: 0 }),
        onEvent: () => () => undefined,
        finish: async () => (spooled.push('finish'), { uploadingStatus: 'uploaded', files: [] }),
      },
      rt.fence,
    );
    assert.equal((await upload.enqueue('/x.ts', 'x.ts')).ok, false);
    assert.deepEqual(spooled, [], 'a fenced recorder uploads nothing');
    assert.deepEqual(await upload.finish(), { uploadingStatus: 'backuped', files: [] }, 'nor marks the shared upload session finished');
    assert.deepEqual(spooled, []);
    const row = await db.db.selectFrom('recording_leases').selectAll().where('resource_id', '=', task.resource.resourceId).executeTakeFirstOrThrow();
    assert.deepEqual([row.epoch, row.holder], [2, 'other'], 'the fenced recorder leaves the new lease alone');
  } finally {
    await s.close();
  }
});

test('a recorder cut off from the database stops writing when its lease runs out, before any renewal answers', async () => {
  const s = setup();
  try {
    const task = await liveTask(s.store, s.clock);
    await s.dispatcher.launch(recordingTaskOf(task, false), reportLog().reportFor());
    const rt = s.double.tasks[0]!;
    // Time passes without a renewal coming back (the jump runs the renewal timers, whose answers come too late).
    s.clock.advance(LEASE_MS + 1);
    assert.equal(rt.fence?.holds(), false);
  } finally {
    await s.close();
  }
});

test('no recorder with room: start gives up after the accept timeout and the job is withdrawn', async () => {
  // Capacity 1 and a cost of 2: the worker refuses every individual session.
  const s = setup({ capacity: 1 });
  try {
    const task = await liveTask(s.store, s.clock);
    const launched = s.dispatcher.launch(recordingTaskOf(task, false), reportLog().reportFor());
    let settled = false;
    const outcome = launched.then(
      () => 'launched',
      (e: Error) => e.message,
    ).finally(() => (settled = true));
    // Let the job be offered (and refused) before the clock reaches the timeout.
    await waitUntil(() => refusedJob(task.session.sid), { intervalMs: 50, what: 'the job offered and refused' });
    while (!settled) {
      s.clock.advance(1000);
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.match(await outcome, /no recorder accepted the session within 5 s/);
    assert.equal(s.double.tasks.length, 0);
    assert.equal(await s.dispatcher.holds!(task.resource.resourceId), false);
    const queue = new Queue(QUEUE_NAME, { connection: { url: TEST_REDIS_URL }, prefix: `${prefix}bull` });
    try {
      assert.equal(await queue.getJob(task.session.sid), undefined, 'the job is withdrawn');
    } finally {
      await queue.close();
    }
  } finally {
    await s.close();
  }
});

test('a session whose recorder died during a stop: the next recorder takes it, finishes the stop, answers it and ends the session', async () => {
  const s = setup();
  const queue = new Queue(QUEUE_NAME, { connection: { url: TEST_REDIS_URL }, prefix: `${prefix}bull` });
  try {
    const live = await liveTask(s.store, s.clock);
    const stopping = requestStop(live, s.clock.now()).task;
    await s.store.save(stopping, s.clock.now());
    // The stop was sent to a recorder that is gone; its job comes back to the queue (here: queued again by hand).
    const answer = s.dispatcher.attach!(recordingTaskOf(live, false)).stop();
    let settled = false;
    void answer.finally(() => (settled = true)).catch(() => undefined);
    await queue.add('session', { resourceId: live.resource.resourceId, sid: live.session.sid }, { jobId: live.session.sid });
    // Unanswered control messages are sent again every 2 s of the injected clock.
    while (!settled) {
      s.clock.advance(2000);
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.deepEqual(await answer, { uploadingStatus: 'uploaded', files: [], recordedAnything: false });
    assert.equal(s.double.stops.length, 1, 'stopped once although the request came several times');
    await waitUntil(() => s.reports.calls.includes('ended'), { what: 'the session ended through the report' });
  } finally {
    await queue.close();
    await s.close();
  }
});

test('a session ended by another process (e.g. a start that gave up waiting) is stopped at the next renewal', async () => {
  const s = setup();
  try {
    const live = await liveTask(s.store, s.clock);
    await s.dispatcher.launch(recordingTaskOf(live, false), reportLog().reportFor());
    const ended = finish(live, { reason: 'error', uploadingStatus: 'unknown', recordedAnything: false }, s.clock.now()).task;
    await s.store.save(ended, s.clock.now());
    s.clock.advance(LEASE_MS / 3);
    await waitUntil(() => s.double.stops.length === 1, { what: 'the recorder is stopped' });
    await waitUntil(async () => !(await s.leases.isHeld(live.resource.resourceId, s.clock.now())), { what: 'the lease is let go' });
  } finally {
    await s.close();
  }
});

test('a recorder taking a session over rejoins with a new uid and a token for it; storage and settings stay the session’s', async () => {
  const s = setup({}, false);
  const queue = new Queue(QUEUE_NAME, { connection: { url: TEST_REDIS_URL }, prefix: `${prefix}bull` });
  try {
    const asked: string[] = [];
    const next = s.addWorker('EU', (appId, cname, uid) => (asked.push(`${appId}/${cname}/${uid}`), `rejoin-${uid}`));
    const live = await liveTask(s.store, s.clock);
    const { resourceId } = live.resource;
    const { sid } = live.session;
    // Its first recorder held the session (epoch 1) and stopped renewing; the job is back in the queue.
    await db.db.insertInto('recording_leases').values({ resource_id: resourceId, sid, epoch: 1, holder: 'gone', expires_at: s.clock.now() - 1 }).execute();
    await queue.add('session', { resourceId, sid }, { jobId: sid });
    await waitUntil(() => next.double.tasks.length === 1, { what: 'the session taken over' });
    const rt = next.double.tasks[0]!;
    assert.match(rt.uid, /^[1-9][0-9]*$/);
    assert.notEqual(rt.uid, '77', 'a new uid, never the old one');
    assert.equal(rt.token, `rejoin-${rt.uid}`, 'a token for the new uid');
    assert.deepEqual(asked, [`app/${live.resource.cname}/${rt.uid}`]);
    assert.equal(rt.resumed, true);
    const planned = recordingTaskOf(live, true);
    assert.deepEqual(rt.settings, planned.settings);
    assert.deepEqual(rt.storage, planned.storage);
    assert.equal('clientRequest' in rt, false, 'the recorder never sees the start request');
    assert.equal(rt.fence?.holds(), true);
  } finally {
    await queue.close();
    await s.close();
  }
});
