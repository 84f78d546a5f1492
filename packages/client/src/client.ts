import { errorFromAnswer, type RecordingError } from './errors.ts';
import { DEFAULT_RETRY, retryDelay, type Operation, type RetryPolicy } from './retry.ts';
import type {
  AcquireRequest,
  AcquireResponse,
  Ingress,
  IngressList,
  IngressRequest,
  NcsIpResponse,
  QueryIndividualResponse,
  QueryMixResponse,
  QueryWebResponse,
  SessionDetailResponse,
  SessionListResponse,
  SessionResponse,
  StartRequest,
  StopRequest,
  StopResponse,
  UpdateLayoutRequest,
  UpdateRequest,
} from './types.gen.ts';

export type RecordingMode = 'individual' | 'mix' | 'web';

/** The query answer of each mode. */
export interface QueryResponseByMode {
  individual: QueryIndividualResponse;
  mix: QueryMixResponse;
  web: QueryWebResponse;
}

export interface RecordingClientOptions {
  /** reeltime's address (`http://127.0.0.1:8080`) or the hosted service's (hostedBaseUrl()). */
  readonly baseUrl: string;
  readonly appId: string;
  /** Customer ID and secret (HTTP Basic). */
  readonly customerId: string;
  readonly customerSecret: string;
  /** Defaults to the global fetch. */
  readonly fetch?: typeof fetch;
  /** How retries wait; defaults to setTimeout. Tests pass one that records the delays. */
  readonly sleep?: (ms: number) => Promise<void>;
  readonly retry?: Partial<RetryPolicy>;
  /** Called before each retry (for logs and progress lines). */
  readonly onRetry?: (info: { readonly operation: Operation; readonly attempt: number; readonly delayMs: number; readonly error: RecordingError }) => void;
}

/** Filters of listSessions (reeltime's sessions API). */
export interface SessionListFilter {
  readonly cname?: string;
  readonly status?: 'live' | 'stopping' | 'ended';
  readonly mode?: RecordingMode;
  /** Started at or after: Unix ms or an ISO 8601 date/time. */
  readonly from?: number | string;
  /** Started before: Unix ms or an ISO 8601 date/time. */
  readonly to?: number | string;
  readonly cursor?: string;
  readonly limit?: number;
}

export interface SessionRef {
  readonly resourceId: string;
  readonly sid: string;
  readonly mode: RecordingMode;
}

function basic(id: string, secret: string): string {
  const bytes = new TextEncoder().encode(`${id}:${secret}`);
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return `Basic ${btoa(s)}`;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The cloud recording REST API, typed from reeltime's schemas. Every method resolves with the success body or
 * rejects with a GatewayError / ServiceError (errors.ts); retries follow retry.ts.
 */
export class RecordingClient {
  readonly #base: string;
  readonly #auth: string;
  readonly #fetch: typeof fetch;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #retry: RetryPolicy;
  readonly #onRetry: RecordingClientOptions['onRetry'];
  readonly appId: string;

  constructor(opts: RecordingClientOptions) {
    this.#base = `${opts.baseUrl.replace(/\/+$/, '')}/v1`;
    this.#auth = basic(opts.customerId, opts.customerSecret);
    this.#fetch = opts.fetch ?? globalThis.fetch.bind(globalThis);
    this.#sleep = opts.sleep ?? defaultSleep;
    this.#retry = { ...DEFAULT_RETRY, ...opts.retry };
    this.#onRetry = opts.onRetry;
    this.appId = opts.appId;
  }

  #app(path: string): string {
    return `/apps/${encodeURIComponent(this.appId)}/cloud_recording${path}`;
  }

  #session(s: SessionRef, op: string): string {
    const e = encodeURIComponent;
    return this.#app(`/resourceid/${e(s.resourceId)}/sid/${e(s.sid)}/mode/${e(s.mode)}/${op}`);
  }

  async #call<T>(op: Operation, method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const res = await this.#fetch(`${this.#base}${path}`, {
        method,
        headers: { authorization: this.#auth, accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const text = await res.text();
      let parsed: unknown;
      try {
        parsed = text === '' ? undefined : JSON.parse(text);
      } catch {
        parsed = text;
      }
      const isServiceCode = parsed !== null && typeof parsed === 'object' && typeof (parsed as { code?: unknown }).code === 'number';
      // 201 and 204: the ingress API's create and delete (the recording API answers 200, or 206 with a code).
      if ((res.status === 200 || res.status === 201 || res.status === 204) && !isServiceCode) return parsed as T;
      const error = errorFromAnswer(res.status, parsed);
      const code = isServiceCode ? (parsed as { code: number }).code : undefined;
      const delayMs = retryDelay(this.#retry, op, res.status, code, attempt);
      if (delayMs === undefined) throw error;
      this.#onRetry?.({ operation: op, attempt: attempt + 1, delayMs, error });
      await this.#sleep(delayMs);
    }
  }

  /** Reserve a resource ID (valid 5 minutes, for one start). */
  acquire(body: AcquireRequest): Promise<AcquireResponse> {
    return this.#call('acquire', 'POST', this.#app('/acquire'), body);
  }

  /** Start recording with a resource ID from acquire. A 5xx is retried with the same body. */
  start(resourceId: string, mode: RecordingMode, body: StartRequest): Promise<SessionResponse> {
    const e = encodeURIComponent;
    return this.#call('start', 'POST', this.#app(`/resourceid/${e(resourceId)}/mode/${e(mode)}/start`), body);
  }

  /** Status and files of a live session; its answer's shape follows the mode. A 404 is retried with back-off. */
  query<M extends RecordingMode>(session: SessionRef & { readonly mode: M }): Promise<QueryResponseByMode[M]> {
    return this.#call('query', 'GET', this.#session(session, 'query'));
  }

  update(session: SessionRef, body: UpdateRequest): Promise<SessionResponse> {
    return this.#call('update', 'POST', this.#session(session, 'update'), body);
  }

  updateLayout(session: SessionRef, body: UpdateLayoutRequest): Promise<SessionResponse> {
    return this.#call('updateLayout', 'POST', this.#session(session, 'updateLayout'), body);
  }

  /**
   * Stop; resolves with the file list. Nothing recorded (206 code 435) and an upload timeout (206 code 50) reject
   * with a ServiceError carrying that code.
   */
  stop(session: SessionRef, body: StopRequest): Promise<StopResponse> {
    return this.#call('stop', 'POST', this.#session(session, 'stop'), body);
  }

  /**
   * reeltime only (an extension the hosted service does not have): every session of the app, live or ended,
   * newest first, one page at a time (`nextCursor` names the next).
   */
  listSessions(filter: SessionListFilter = {}): Promise<SessionListResponse> {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(filter)) if (v !== undefined) params.set(k, String(v));
    const qs = params.size > 0 ? `?${params}` : '';
    return this.#call('listSessions', 'GET', this.#app(`/sessions${qs}`));
  }

  /** reeltime only: one session with its request (secrets removed), files (with URLs on the local bucket) and events. */
  getSession(sid: string): Promise<SessionDetailResponse> {
    return this.#call('getSession', 'GET', this.#app(`/sessions/${encodeURIComponent(sid)}`));
  }

  /**
   * reeltime only: an ingress, a source outside WebRTC published into a channel as `uid` (docs/ingest.md). An RTMP
   * one answers `push.server` and `push.streamKey` (OBS's Server and Stream Key; the key is a secret).
   */
  createIngress(body: IngressRequest): Promise<Ingress> {
    return this.#call('createIngress', 'POST', this.#ingress(''), body);
  }

  /** reeltime only: one ingress and its state (`waiting`, `publishing`, `failed`). */
  getIngress(ingressId: string): Promise<Ingress> {
    return this.#call('getIngress', 'GET', this.#ingress(`/${encodeURIComponent(ingressId)}`));
  }

  /** reeltime only: the app's ingresses, oldest first. */
  listIngresses(): Promise<IngressList> {
    return this.#call('listIngresses', 'GET', this.#ingress(''));
  }

  /** reeltime only: deletes an ingress (its stream key stops working; a publish of it ends). */
  async deleteIngress(ingressId: string): Promise<void> {
    await this.#call('deleteIngress', 'DELETE', this.#ingress(`/${encodeURIComponent(ingressId)}`));
  }

  #ingress(path: string): string {
    return `/apps/${encodeURIComponent(this.appId)}/ingress${path}`;
  }

  /** Addresses webhook requests come from (for a firewall allow-list). */
  getNcsIp(): Promise<NcsIpResponse> {
    return this.#call('getNcsIp', 'GET', '/ncs/ip');
  }
}
