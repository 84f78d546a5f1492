// A notify sender in a process of its own, for tests of what other processes do when it dies (dead-sender.test.ts).
// Environment: NOTIFY_TEST_DATABASE_URL (PostgreSQL, with ?schema=), NOTIFY_TEST_WEBHOOK_URL, NOTIFY_TEST_DATA_DIR
// (its journals), NOTIFY_TEST_SID (optional: one event 40 of that session is emitted at start). Logs JSON lines
// on stdout; SIGTERM closes it gracefully. Started as `node --import tsx -e` importing runSenderProcess.
import { systemClock } from '../../clock/index.ts';
import { openDatabase } from '../../db/index.ts';
import { createLogger } from '../../log/index.ts';
import { event, startNotify } from '../test-helpers.ts';

function required(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`sender-process: ${name} is required`);
  return v;
}

/** Runs until SIGTERM (graceful close) or SIGKILL. */
export async function runSenderProcess(): Promise<void> {
  const db = await openDatabase({ url: required('NOTIFY_TEST_DATABASE_URL') });
  const m = await startNotify({
    database: { ...db, location: {} },
    clock: systemClock,
    url: required('NOTIFY_TEST_WEBHOOK_URL'),
    env: { REELTIME_DATA_DIR: required('NOTIFY_TEST_DATA_DIR') },
    lines: { lines: [], log: createLogger('info', process.stdout) },
  });
  const sid = process.env.NOTIFY_TEST_SID;
  if (sid) await m.emit(event(sid, 40));
  process.stdout.write('sender-process: ready\n');
  const alive = setInterval(() => undefined, 60_000);
  process.once('SIGTERM', () => {
    clearInterval(alive);
    const closing = m.close?.() ?? Promise.resolve();
    void closing.then(() => db.close()).finally(() => process.exit(0));
  });
}
