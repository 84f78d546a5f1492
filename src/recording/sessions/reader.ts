/** Reads sessions for the sessions API: the store's rows, status history and events, and the notifier's deliveries. */
import type { DeliveryFilter, DeliveryRecord } from '../../notify/index.ts';
import type { SessionDetailResponse, SessionListResponse, SessionUploads } from '../api/schemas.ts';
import type { SessionQuery, TaskStore } from '../store/task-store.ts';
import { encodeCursor } from './query.ts';
import { hasStarted, sessionDetail, sessionSummary, type PlaybackUrls } from './view.ts';

export interface SessionReaderDeps {
  readonly store: TaskStore;
  readonly deliveries: (filter: DeliveryFilter) => Promise<readonly DeliveryRecord[]>;
  readonly playbackUrls: PlaybackUrls;
  /** What the session has in the bucket (the storage module's manifest). */
  readonly uploads: (sid: string) => Promise<SessionUploads>;
}

export class SessionReader {
  constructor(private readonly d: SessionReaderDeps) {}

  async list(q: SessionQuery): Promise<SessionListResponse> {
    // One more than asked tells whether an older page exists without a count query.
    const tasks = (await this.d.store.listSessions({ ...q, limit: q.limit + 1 })).filter(hasStarted);
    const page = tasks.slice(0, q.limit).map(sessionSummary);
    const last = page[page.length - 1];
    return {
      sessions: page,
      ...(tasks.length > q.limit && last ? { nextCursor: encodeCursor({ startedAt: last.startedAt, sid: last.sid }) } : {}),
    };
  }

  async detail(appId: string, sid: string): Promise<SessionDetailResponse | undefined> {
    if (!/^[0-9a-zA-Z_-]{1,128}$/.test(sid)) return undefined;
    const task = await this.d.store.bySid(appId, sid);
    if (!task || !hasStarted(task)) return undefined;
    const [history, events, deliveries, uploads, urls] = await Promise.all([
      this.d.store.statusHistory(sid),
      this.d.store.events(sid),
      this.d.deliveries({ appId, sid }),
      this.d.uploads(sid),
      this.d.playbackUrls(appId, task.session.clientRequest.storageConfig, task.session.files.map((f) => f.fileName)),
    ]);
    return sessionDetail(task, history, events, deliveries, urls, uploads);
  }
}
