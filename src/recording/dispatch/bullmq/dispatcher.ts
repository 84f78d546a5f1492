import { Queue } from 'bullmq';
import { RecorderRefusedError } from '../../lifecycle/index.ts';
import { within } from '../../within.ts';
import type { Dispatcher, RecorderHandle, RecordingMode, RecordingTask } from '../types.ts';
import { bullConnection, bullPrefix, type QueueContext } from './connection.ts';
import { sendControl } from './control.ts';
import { noFitReason } from './labels.ts';
import { placementNeeds } from './registry.ts';
import { QUEUE_NAME, topics, type Accepted, type ControlReply, type SessionJob } from './protocol.ts';

export interface QueueDispatcherDeps extends QueueContext {
  /** Modes the deployment's recorders run (every process runs the same program). */
  readonly modes: readonly RecordingMode[];
}

/** update/updateLayout wait this long for the recorder; a take-over in progress can take up to about 1.5 leases. */
const CONTROL_TIMEOUT_MS = 30_000;
/** A stop waits longer: the recorder answers once its last uploads are done (recording/runtime/executor.ts bounds it too). */
const STOP_TIMEOUT_MS = 15 * 60 * 1000;

export class NoRecorderAccepted extends Error {
  constructor(seconds: number) {
    super(`no recorder accepted the session within ${seconds} s`);
  }
}

function unwrap(r: ControlReply): ControlReply & { ok: true } {
  if (!r.ok) throw new Error(r.message);
  return r;
}

/**
 * The API side of queue-backed dispatch: `launch` queues the session (BullMQ) and waits until a recorder process
 * accepts it; control goes over the message bus to whichever recorder holds the session now.
 */
export function createQueueDispatcher(d: QueueDispatcherDeps): Dispatcher {
  const connection = bullConnection(d.redisUrl, d.log, 'reeltime-queue');
  const queue = new Queue<SessionJob>(QUEUE_NAME, { connection, prefix: bullPrefix(d.redisPrefix) });
  queue.on('error', (e: Error) => d.log.warn({ err: e.message }, 'recording queue error'));
  const modes = new Set(d.modes);

  const attach = (task: RecordingTask): RecorderHandle => ({
    async update(change) {
      unwrap(await sendControl(d.bus, d.clock, task.sid, { op: 'update', change }, CONTROL_TIMEOUT_MS));
    },
    async updateLayout(layout) {
      unwrap(await sendControl(d.bus, d.clock, task.sid, { op: 'updateLayout', layout }, CONTROL_TIMEOUT_MS));
    },
    async stop() {
      const r = unwrap(await sendControl(d.bus, d.clock, task.sid, { op: 'stop' }, STOP_TIMEOUT_MS, topics.stopped(task.sid)));
      if (!r.result) throw new Error('the recorder answered stop without a result');
      return r.result;
    },
  });

  return {
    supports: (mode) => modes.has(mode),
    recoversItself: true,
    attach,
    holds: (resourceId) => d.leases.isHeld(resourceId, d.clock.now()),
    async unplaceable(resource) {
      const [workers, needs] = await Promise.all([d.workers.live(d.clock.now()), placementNeeds(d.leases, resource)]);
      return noFitReason(workers, needs);
    },
    async launch(task) {
      let settle: (a: Accepted) => void = () => undefined;
      const accepted = new Promise<Accepted>((resolve) => (settle = resolve));
      // Listen before queueing: a free recorder can accept within milliseconds.
      const unsubscribe = await d.bus.subscribe(topics.accepted(task.sid), (raw) => settle(JSON.parse(raw) as Accepted));
      try {
        const job: SessionJob = { resourceId: task.resourceId, sid: task.sid };
        await queue.add('session', job, { jobId: task.sid, removeOnComplete: true, removeOnFail: 1000 });
        const answer = await within(d.clock, accepted, d.settings.acceptTimeoutMs);
        if (!answer) {
          // Nobody took it in time: the task ends here (502), so the job must not start later.
          await queue.remove(task.sid).catch(() => undefined);
          throw new NoRecorderAccepted(d.settings.acceptTimeoutMs / 1000);
        }
        if (!answer.ok) throw answer.refused ? new RecorderRefusedError(answer.refused.field, answer.refused.rule) : new Error(answer.message);
        return attach(task);
      } finally {
        await unsubscribe();
      }
    },
    async close() {
      await queue.close();
      connection.disconnect();
    },
  };
}
