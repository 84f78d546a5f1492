/**
 * The API operations of the control plane: validate, apply the lifecycle, return the resulting task (or stop
 * outcome). Independent of HTTP: `api/` builds every body from these results.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock/index.ts';
import type { Dispatcher } from './dispatch/types.ts';
import { apiError, type Echo } from './errors.ts';
import {
  accessSession,
  assertStartable,
  canonicalJson,
  createIssuedTask,
  DEFAULT_RESOURCE_EXPIRED_HOUR,
  requestStop,
  RESOURCE_TTL_MS,
  startSession,
  updateLayout,
  updateSession,
  uploadTimedOut,
  type EndedTask,
  type IssuedTask,
  type LiveTask,
  type StoppingTask,
  type Task,
} from './lifecycle/index.ts';
import type { RecordingConfig } from './config.ts';
import type { SessionRuntime } from './runtime.ts';
import { checkStorageRegion } from './storage-rules.ts';
import { TaskConflictError, type TaskStore } from './store/index.ts';
import { within } from './within.ts';
import {
  acquireRequest,
  checkSceneMode,
  checkUpdateMode,
  startEnvelope,
  stopRequest,
  updateLayoutRequest,
  updateRequest,
  validateStartClientRequest,
  ValidationError,
  RECORDING_MODES,
  type RecordingMode,
} from './validation/index.ts';

/** How a stop request ended. */
export type StopOutcome =
  /** `async_stop`: answered before the recorder finished (the stop goes on). */
  | { readonly kind: 'accepted'; readonly task: StoppingTask }
  /** The uploads did not finish within `stopTimeoutMs` (the stop goes on, the session ends later). */
  | { readonly kind: 'timedOut'; readonly task: StoppingTask }
  /** The recorder stopped: the ended task holds the files, uploadingStatus and whether anything was recorded. */
  | { readonly kind: 'ended'; readonly task: EndedTask };

export interface ServiceDeps {
  readonly config: RecordingConfig;
  readonly clock: Clock;
  readonly store: TaskStore;
  readonly runtime: SessionRuntime;
  readonly dispatcher: Dispatcher;
}

/** Identifiers of a raw body, echoed in its errors when they are strings. */
function rawEcho(body: unknown): Echo {
  const b = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  return {
    cname: typeof b.cname === 'string' ? b.cname : undefined,
    uid: typeof b.uid === 'string' ? b.uid : undefined,
  };
}

/** Runs validators, turning a ValidationError into code 2 with "path: rule" and the known identifiers. */
function validated<T>(echo: Echo, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof ValidationError) throw apiError('invalidParameter', e.message, echo);
    throw e;
  }
}

function parseMode(mode: string, echo: Echo): RecordingMode {
  if (!RECORDING_MODES.includes(mode as RecordingMode)) {
    throw apiError('invalidParameter', 'mode: must be one of individual, mix, web', echo);
  }
  return mode as RecordingMode;
}

const RESOURCE_ID = /^[A-Za-z0-9_-]{16,256}$/;

export class RecordingService {
  constructor(private readonly d: ServiceDeps) {}

  async acquire(appId: string, body: unknown): Promise<IssuedTask> {
    const echo = rawEcho(body);
    const req = validated(echo, () => acquireRequest(body, ''));
    const now = this.d.clock.now();
    const cr = req.clientRequest ?? {};
    if ((await this.d.store.countActive(appId, now)) >= this.d.config.maxConcurrentTasks) {
      throw apiError('vendorOverLoad', undefined, echo);
    }
    const resourceId = randomBytes(48).toString('base64url');
    const task = createIssuedTask({
      resourceId,
      appId,
      cname: req.cname,
      uid: req.uid,
      scene: cr.scene ?? 0,
      resourceExpiredHour: cr.resourceExpiredHour ?? DEFAULT_RESOURCE_EXPIRED_HOUR,
      region: cr.region ?? this.d.config.region,
      excludeResourceIds: cr.excludeResourceIds ?? [],
      startParameter: cr.startParameter === undefined ? undefined : canonicalJson(cr.startParameter),
      issuedAt: now,
      expiresAt: now + RESOURCE_TTL_MS,
    });
    await this.d.store.insert(task, now);
    return task;
  }

  async start(appId: string, resourceId: string, modeText: string, body: unknown): Promise<LiveTask> {
    const echo: Echo = { ...rawEcho(body), resourceId };
    const mode = parseMode(modeText, echo);
    const env = validated(echo, () => startEnvelope(body, ''));
    if (!RESOURCE_ID.test(resourceId)) throw apiError('resourceInvalid', undefined, echo);
    const existing = await this.d.runtime.get(resourceId);
    if (!existing) throw apiError('resourceInvalid', undefined, echo);
    const now = this.d.clock.now();
    assertStartable(existing, { appId, cname: env.cname, uid: env.uid }, now);
    const scene = existing.resource.scene;
    const clientRequest = validated(echo, () => {
      checkSceneMode(scene, mode);
      const cr = validateStartClientRequest(env.clientRequest, mode, scene);
      checkStorageRegion(cr.storageConfig, existing.resource.region, 'clientRequest.storageConfig');
      return cr;
    });
    if (!this.d.dispatcher.supports(mode)) {
      throw apiError('invalidParameter', `mode: no ${mode} recorder is available on this server`, echo);
    }
    if (await this.d.store.hasActive(appId, env.cname, env.uid)) throw apiError('taskConflict', undefined, echo);
    const sid = randomBytes(16).toString('hex');
    let live: LiveTask;
    let launched: Promise<Task>;
    try {
      const out = await this.d.runtime.mutate(resourceId, (t) =>
        startSession(
          t ?? existing,
          { appId, cname: env.cname, uid: env.uid, sid, mode, clientRequest, canonical: canonicalJson(env.clientRequest) },
          this.d.clock.now(),
        ),
      );
      live = out.task;
      launched = out.done;
    } catch (e) {
      if (e instanceof TaskConflictError) throw apiError('taskConflict', undefined, echo);
      throw e;
    }
    try {
      await launched;
    } catch {
      throw apiError('allocateFailed', undefined, { ...echo, sid });
    }
    return live;
  }

  /** The task of a well-formed resource ID (others cannot exist, and are never sent to the database). */
  async #find(resourceId: string): Promise<Task | undefined> {
    return RESOURCE_ID.test(resourceId) ? this.d.runtime.get(resourceId) : undefined;
  }

  async query(appId: string, resourceId: string, sid: string, modeText: string): Promise<LiveTask | StoppingTask> {
    const echo: Echo = { resourceId, sid };
    const mode = parseMode(modeText, echo);
    const task = accessSession(await this.#find(resourceId), { appId, sid }, this.d.clock.now());
    this.#checkMode(task, mode);
    return task;
  }

  async update(appId: string, resourceId: string, sid: string, modeText: string, body: unknown): Promise<LiveTask> {
    const echo: Echo = { ...rawEcho(body), resourceId, sid };
    const mode = parseMode(modeText, echo);
    const req = validated(echo, () => updateRequest(body, ''));
    const ref = { appId, sid, cname: req.cname, uid: req.uid };
    const current = accessSession(await this.#find(resourceId), ref, this.d.clock.now());
    this.#checkMode(current, mode);
    validated(echo, () => {
      checkUpdateMode(req.clientRequest, mode, current.session.rtmp.length > 0);
      checkStorageRegion(req.clientRequest.storageConfig, current.resource.region, 'clientRequest.storageConfig');
    });
    const { task, done } = await this.d.runtime.mutate(resourceId, (t) =>
      updateSession(accessSession(t, ref, this.d.clock.now()), req.clientRequest),
    );
    await done;
    return task;
  }

  async updateLayout(appId: string, resourceId: string, sid: string, modeText: string, body: unknown): Promise<LiveTask> {
    const echo: Echo = { ...rawEcho(body), resourceId, sid };
    const mode = parseMode(modeText, echo);
    if (mode !== 'mix') throw apiError('invalidParameter', 'mode: updateLayout is only supported in mix mode', echo);
    const req = validated(echo, () => updateLayoutRequest(body, ''));
    const ref = { appId, sid, cname: req.cname, uid: req.uid };
    const current = accessSession(await this.#find(resourceId), ref, this.d.clock.now());
    this.#checkMode(current, mode);
    const { task, done } = await this.d.runtime.mutate(resourceId, (t) =>
      updateLayout(accessSession(t, ref, this.d.clock.now()), req.clientRequest),
    );
    await done;
    return task;
  }

  async stop(appId: string, resourceId: string, sid: string, modeText: string, body: unknown): Promise<StopOutcome> {
    const echo: Echo = { ...rawEcho(body), resourceId, sid };
    const mode = parseMode(modeText, echo);
    const req = validated(echo, () => stopRequest(body, ''));
    const ref = { appId, sid, cname: req.cname, uid: req.uid };
    const current = accessSession(await this.#find(resourceId), ref, this.d.clock.now());
    this.#checkMode(current, mode);
    const { task: stopping, done } = await this.d.runtime.mutate(resourceId, (t) =>
      requestStop(accessSession(t, ref, this.d.clock.now()), this.d.clock.now()),
    );
    if (req.clientRequest.async_stop === true) return { kind: 'accepted', task: stopping };
    const ended = await within(this.d.clock, done, this.d.config.stopTimeoutMs);
    if (ended === undefined) {
      await this.d.runtime.mutate(resourceId, (t) => uploadTimedOut(t ?? stopping));
      return { kind: 'timedOut', task: stopping };
    }
    // Ending a stopping task always yields an ended one.
    if (ended.kind !== 'ended') throw new Error(`stop ended in state ${ended.kind}`);
    return { kind: 'ended', task: ended };
  }

  /** The path mode must be the session's own. */
  #checkMode(task: LiveTask | StoppingTask, mode: RecordingMode): void {
    if (task.session.mode !== mode) {
      throw apiError('invalidParameter', `mode: must be ${task.session.mode}, the mode this session was started in`, {
        cname: task.resource.cname,
        uid: task.resource.uid,
        resourceId: task.resource.resourceId,
        sid: task.session.sid,
      });
    }
  }
}
