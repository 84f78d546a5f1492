/**
 * The API operations of the control plane: validate, apply the lifecycle, return the resulting task (or stop
 * outcome). Independent of HTTP: `api/` builds every body from these results.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock/index.ts';
import { checkOutboundUrl, OutboundUrlError, resolveOutboundHost, type OutboundPolicy } from '../net/index.ts';
import { checkStorageTarget, type StorageSettings } from '../storage/index.ts';
import type { Dispatcher } from './dispatch/types.ts';
import {
  accessSession,
  assertMode,
  assertStartable,
  canonicalJson,
  createIssuedTask,
  DEFAULT_RESOURCE_EXPIRED_HOUR,
  LaunchFailedError,
  LayoutNotSupportedError,
  NoRecorderFitsError,
  RecorderRefusedError,
  RecorderUnavailableError,
  requestStop,
  RESOURCE_TTL_MS,
  SessionNotFoundError,
  sessionSubject,
  startSession,
  TaskConflictError,
  TooManyTasksError,
  UnknownResourceError,
  updateLayout,
  updateSession,
  uploadTimedOut,
  type EndedTask,
  type IssuedTask,
  type LiveTask,
  type StoppingTask,
  type SessionRef,
  type Task,
} from './lifecycle/index.ts';
import type { RecordingSettings } from './config.ts';
import type { SessionRuntime } from './runtime/index.ts';
import { checkStorageRegion } from './storage-rules.ts';
import type { TaskStore } from './store/index.ts';
import { within } from './within.ts';
import {
  acquireRequest,
  checkSceneMode,
  checkStorageUnchanged,
  checkUpdateMode,
  RESOURCE_ID_PATTERN,
  startEnvelope,
  stopRequest,
  updateLayoutRequest,
  updateRequest,
  validateStartClientRequest,
  ValidationError,
  RECORDING_MODES,
  type RecordingMode,
  type StartClientRequest,
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
  readonly config: RecordingSettings;
  readonly clock: Clock;
  readonly store: TaskStore;
  readonly runtime: SessionRuntime;
  readonly dispatcher: Dispatcher;
  /** Web mode: which page URLs `start` accepts (the outbound URL guard's policy; docs/recording-web.md). */
  readonly pageUrlPolicy?: OutboundPolicy;
  /**
   * Where private targets are refused (production): the guard's policy for the storage endpoint and CDN push
   * targets a request names, checked at `start` and `update` (and again at connect time by the recorder).
   */
  readonly outbound?: { readonly policy: OutboundPolicy; readonly storage: StorageSettings };
}

const NOT_PUBLIC_RULE = 'must be a public address (private, loopback and other special-purpose addresses are refused)';

/**
 * An RTMP(S) push target's host must be public. The answer names neither the resolved address nor the range, so
 * it can't be used to map the operator's network.
 */
async function checkRtmpTarget(rtmpUrl: string, policy: OutboundPolicy, field: string): Promise<void> {
  let url: URL;
  try {
    url = new URL(rtmpUrl);
  } catch {
    throw new ValidationError(field, 'must be an rtmp:// or rtmps:// URL');
  }
  try {
    await resolveOutboundHost(url.hostname, policy);
  } catch (e) {
    if (!(e instanceof OutboundUrlError)) throw e;
    throw new ValidationError(field, e.refusal === 'unresolvable' ? 'host name could not be resolved' : `host ${NOT_PUBLIC_RULE}`);
  }
}

function parseMode(mode: string): RecordingMode {
  if (!RECORDING_MODES.includes(mode as RecordingMode)) throw new ValidationError('mode', 'must be one of individual, mix, web');
  return mode as RecordingMode;
}

const RESOURCE_ID = RESOURCE_ID_PATTERN;

/**
 * Each operation validates its input, applies the lifecycle through the runtime and returns the resulting task or
 * stop outcome. Refusals are thrown as ValidationError or a named refusal (lifecycle/errors.ts).
 */
export class RecordingService {
  constructor(private readonly d: ServiceDeps) {}

  async acquire(appId: string, body: unknown): Promise<IssuedTask> {
    const req = acquireRequest(body, '');
    const now = this.d.clock.now();
    const cr = req.clientRequest ?? {};
    if ((await this.d.store.countActive(appId, now)) >= this.d.config.maxConcurrentTasks) throw new TooManyTasksError();
    const task = createIssuedTask({
      resourceId: randomBytes(48).toString('base64url'),
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

  /** The page a web recorder will open goes through the outbound URL guard: a refused URL is a 400 at start. */
  private async checkPageUrl(cr: StartClientRequest): Promise<void> {
    const policy = this.d.pageUrlPolicy;
    if (!policy) return;
    const services = cr.extensionServiceConfig?.extensionServices ?? [];
    for (const [i, s] of services.entries()) {
      if (s.serviceName !== 'web_recorder_service') continue;
      try {
        await checkOutboundUrl(s.serviceParam.url, policy);
      } catch (e) {
        if (!(e instanceof OutboundUrlError)) throw e;
        // Like the storage and push targets: the resolved address and its range are not echoed to the customer.
        const rule =
          e.refusal === 'blocked_address' ? `host ${NOT_PUBLIC_RULE}` : e.refusal === 'unresolvable' ? 'host name could not be resolved' : e.message;
        throw new ValidationError(`clientRequest.extensionServiceConfig.extensionServices[${i}].serviceParam.url`, rule);
      }
    }
  }

  /** The storage endpoint and CDN push targets of a start request pass the outbound guard (production). */
  private async checkStartTargets(cr: StartClientRequest): Promise<void> {
    const o = this.d.outbound;
    if (!o) return;
    const problem = await checkStorageTarget(cr.storageConfig, o.storage, o.policy);
    if (problem) {
      const rule = problem.reason.startsWith(`${problem.field} `) ? problem.reason.slice(problem.field.length + 1) : problem.reason;
      throw new ValidationError(`clientRequest.${problem.field}`, rule);
    }
    for (const [i, s] of (cr.extensionServiceConfig?.extensionServices ?? []).entries()) {
      if (s.serviceName !== 'rtmp_publish_service') continue;
      for (const [j, out] of s.serviceParam.outputs.entries()) {
        await checkRtmpTarget(out.rtmpUrl, o.policy, `clientRequest.extensionServiceConfig.extensionServices[${i}].serviceParam.outputs[${j}].rtmpUrl`);
      }
    }
  }

  async start(appId: string, resourceId: string, modeText: string, body: unknown): Promise<LiveTask> {
    const mode = parseMode(modeText);
    const env = startEnvelope(body, '');
    if (!RESOURCE_ID.test(resourceId)) throw new UnknownResourceError();
    const existing = await this.d.runtime.get(resourceId);
    if (!existing) throw new UnknownResourceError();
    const now = this.d.clock.now();
    assertStartable(existing, { appId, cname: env.cname, uid: env.uid }, now);
    const scene = existing.resource.scene;
    checkSceneMode(scene, mode);
    const clientRequest = validateStartClientRequest(env.clientRequest, mode, scene);
    checkStorageRegion(clientRequest.storageConfig, existing.resource.region, 'clientRequest.storageConfig');
    if (mode === 'web') await this.checkPageUrl(clientRequest);
    await this.checkStartTargets(clientRequest);
    if (!this.d.dispatcher.supports(mode)) throw new RecorderUnavailableError(mode);
    const unfit = await this.d.dispatcher.unplaceable?.(existing.resource);
    if (unfit !== undefined) throw new NoRecorderFitsError(unfit);
    if (await this.d.store.hasActive(appId, env.cname, env.uid)) throw new TaskConflictError();
    const sid = randomBytes(16).toString('hex');
    // The store refuses a second active session of the same cname+uid (TaskConflictError) in a race.
    const { task: live, done } = await this.d.runtime.mutate(resourceId, (t) =>
      startSession(
        t ?? existing,
        { appId, cname: env.cname, uid: env.uid, sid, mode, clientRequest, canonical: canonicalJson(env.clientRequest) },
        this.d.clock.now(),
      ),
    );
    try {
      await done;
    } catch (e) {
      // A refusal the request can fix (400 naming the field); any other launch failure is the service's (502).
      if (e instanceof RecorderRefusedError) throw new RecorderRefusedError(e.field, e.rule, sessionSubject(live));
      throw new LaunchFailedError(sessionSubject(live));
    }
    return live;
  }

  /** The task of a well-formed resource ID (others cannot exist, and are never sent to the database). */
  async #find(resourceId: string): Promise<Task | undefined> {
    return RESOURCE_ID.test(resourceId) ? this.d.runtime.get(resourceId) : undefined;
  }

  /**
   * The live or stopping session a call names (app, resource, sid and, from the body, cname and uid), checked
   * against the path's mode; `ref` finds it again inside a mutation.
   */
  async #named(resourceId: string, ref: SessionRef, mode: RecordingMode): Promise<LiveTask | StoppingTask> {
    const current = accessSession(await this.#find(resourceId), ref, this.d.clock.now());
    assertMode(current, mode);
    // A live session no recorder holds is changing recorders (failover): 404 until one has taken it.
    if (current.kind === 'live' && this.d.dispatcher.holds && !(await this.d.dispatcher.holds(resourceId))) {
      throw new SessionNotFoundError({ cname: ref.cname, uid: ref.uid, resourceId, sid: ref.sid });
    }
    return current;
  }

  async query(appId: string, resourceId: string, sid: string, modeText: string): Promise<LiveTask | StoppingTask> {
    return this.#named(resourceId, { appId, sid }, parseMode(modeText));
  }

  async update(appId: string, resourceId: string, sid: string, modeText: string, body: unknown): Promise<LiveTask> {
    const mode = parseMode(modeText);
    const req = updateRequest(body, '');
    const ref = { appId, sid, cname: req.cname, uid: req.uid };
    const current = await this.#named(resourceId, ref, mode);
    checkUpdateMode(req.clientRequest, mode, current.session.rtmp.length > 0);
    const storage = req.clientRequest.storageConfig;
    if (storage) {
      checkStorageRegion(storage, current.resource.region, 'clientRequest.storageConfig');
      checkStorageUnchanged(storage, current.session.clientRequest.storageConfig, 'clientRequest.storageConfig');
    }
    const outbound = this.d.outbound;
    for (const [i, out] of (outbound ? req.clientRequest.rtmpPublishConfig?.outputs ?? [] : []).entries()) {
      await checkRtmpTarget(out.rtmpUrl, outbound!.policy, `clientRequest.rtmpPublishConfig.outputs[${i}].rtmpUrl`);
    }
    const { task, done } = await this.d.runtime.mutate(resourceId, (t) =>
      updateSession(accessSession(t, ref, this.d.clock.now()), req.clientRequest),
    );
    await done;
    return task;
  }

  async updateLayout(appId: string, resourceId: string, sid: string, modeText: string, body: unknown): Promise<LiveTask> {
    const mode = parseMode(modeText);
    if (mode !== 'mix') throw new LayoutNotSupportedError();
    const req = updateLayoutRequest(body, '');
    const ref = { appId, sid, cname: req.cname, uid: req.uid };
    await this.#named(resourceId, ref, mode);
    const { task, done } = await this.d.runtime.mutate(resourceId, (t) =>
      updateLayout(accessSession(t, ref, this.d.clock.now()), req.clientRequest),
    );
    await done;
    return task;
  }

  async stop(appId: string, resourceId: string, sid: string, modeText: string, body: unknown): Promise<StopOutcome> {
    const mode = parseMode(modeText);
    const req = stopRequest(body, '');
    const ref = { appId, sid, cname: req.cname, uid: req.uid };
    await this.#named(resourceId, ref, mode);
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
}
