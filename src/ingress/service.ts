import { randomBytes } from 'node:crypto';
import { buildRtcTokenWithUid } from '@reeltime/token';
import { startWhepRelay, type LocalPublishHandle, type LocalPublishParams, type PublishInProcess, type RtpPublisher } from '../channel/index.ts';
import type { Clock, TimerHandle } from '../clock/index.ts';
import { safeEqual } from '../http/index.ts';
import type { Logger } from '../log/index.ts';
import type { Admission } from '../process/index.ts';
import { checkOutboundUrl, OutboundUrlError, resolveOutboundHost, type OutboundPolicy } from '../net/index.ts';
import { IngressError } from './errors.ts';
import { bracketed, explainIngestError, FIRST_PLAN, ingestPictureEnd, spawnIngestFfmpeg, type IngestInput, type MediaPlan } from './pipeline.ts';
import { ffmpegPublish, flvPublish, type PublishOutcome, type PublishPlan } from './publish.ts';
import { maskUrl, secretsOf } from './secrets.ts';
import { HeldFlv, type PublishDecision } from './rtmp/index.ts';
import { ParticipantTakenError, PortTakenError, type IngressStore } from './store.ts';
import { pullsSource, shownState, type Ingress, type IngressState } from './types.ts';
import { validateIngressRequest } from './validate.ts';

/** An ingress as the API answers it: push kinds add where to push (OBS's "Server" and "Stream Key"). */
export interface IngressView {
  readonly ingressId: string;
  readonly cname: string;
  readonly uid: string;
  readonly kind: Ingress['kind'];
  /** The source's URL with its password and SRT passphrase replaced by `***` (secrets are never answered). */
  readonly url?: string;
  readonly transport?: Ingress['transport'];
  readonly push?: { readonly server: string; readonly streamKey: string; readonly url: string };
  readonly state: IngressState;
  readonly error?: string;
  readonly createdMs: number;
  readonly updatedMs: number;
}

export interface IngressServiceDeps {
  readonly store: IngressStore;
  readonly clock: Clock;
  readonly log: Logger;
  /** Signs the publisher token of an ingress's participant; undefined when the app checks no tokens. */
  readonly appCertificate: string | undefined;
  readonly policy: OutboundPolicy;
  /** The RTMP "Server" URL answered to RTMP ingresses; undefined when no RTMP listener is configured. */
  rtmpServerUrl(): string | undefined;
  /** This server's base URL: ingresses publish into their channel over WHIP here. */
  baseUrl(): string;
  /** In-process publish (`ChannelModule.publishLocal`), when every channel is here: ffmpeg's RTP skips WHIP. */
  readonly publishLocal?: ((params: LocalPublishParams) => LocalPublishHandle) | undefined;
  /** How long a pushed source may take before both its audio and its video reach the channel. */
  readonly startTimeoutMs: number;
  /** The UDP ports SRT ingresses are given; undefined: SRT is off. */
  readonly srtPorts: { readonly first: number; readonly last: number } | undefined;
  /** `srt://host:port` of an SRT ingress's port, as clients reach it. */
  srtServerUrl(port: number): string;
  /** This process's admission: a publishing ingress holds `cost` units of it, `transcodeCost` when it re-encodes. */
  readonly admission: Admission;
  readonly cost: number;
  readonly transcodeCost: number;
}

/** The publisher token's lifetime; the participant is admitted with it once, at its join. */
const TOKEN_SECONDS = 24 * 3600;
/** Whoever presents a wrong or unknown key learns only this. */
const KEY_REFUSED = 'stream key refused';

interface ActivePublish {
  readonly kind: Ingress['kind'];
  stop(reason: string): void;
}

/** How long a `publishing` state holds unless its process renews it (every third of it). */
const PUBLISH_LIVE_MS = 15_000;

/** The reason an ingress shows when its process had no room for it. */
const NO_ROOM = 'this process has no room for another ingress (ingress.capacity and ingress.cost or ingress.transcodeCost, or its CPU over ingress.cpuThresholdPercent); tried again later';

/** Ingresses: the create/get/list/delete of the API, and the publishes their sources make. */
export class IngressService {
  readonly #d: IngressServiceDeps;
  readonly #active = new Map<string, ActivePublish>();
  /** The kind of each ingress whose media is in its channel now (for the metrics). */
  readonly #publishing = new Map<string, Ingress['kind']>();
  /** The plan each starting publish's media process settled on (told before the publish is admitted). */
  readonly #plans = new Map<string, MediaPlan>();

  constructor(deps: IngressServiceDeps) {
    this.#d = deps;
  }

  view(i: Ingress): IngressView {
    return {
      ingressId: i.ingressId,
      cname: i.cname,
      uid: i.uid,
      kind: i.kind,
      ...(i.url !== undefined ? { url: maskUrl(i.url) } : {}),
      ...(i.transport !== undefined ? { transport: i.transport } : {}),
      ...this.#push(i),
      state: shownState(i, this.#d.clock.now()),
      ...(i.error !== undefined ? { error: i.error } : {}),
      createdMs: i.createdMs,
      updatedMs: i.updatedMs,
    };
  }

  /** Where a push kind's source connects: RTMP's Server + Stream Key; SRT's URL + passphrase (in the URL too). */
  #push(i: Ingress): { push?: NonNullable<IngressView['push']> } {
    if (!i.streamKey) return {};
    if (i.kind === 'srt' && i.port !== undefined) {
      const server = this.#d.srtServerUrl(i.port);
      return { push: { server, streamKey: i.streamKey, url: `${server}?passphrase=${encodeURIComponent(i.streamKey)}&pbkeylen=16` } };
    }
    const server = i.kind === 'rtmp' ? this.#d.rtmpServerUrl() : undefined;
    return server ? { push: { server, streamKey: i.streamKey, url: `${server}/${i.streamKey}` } } : {};
  }

  async create(appId: string, body: unknown): Promise<IngressView> {
    const req = validateIngressRequest(body);
    if (req.url !== undefined) await this.#checkSource(req.url, req.kind);
    if (req.kind === 'rtmp' && !this.#d.rtmpServerUrl()) throw new IngressError('notAvailable', 'kind: RTMP ingest is not enabled on this server (REELTIME_INGRESS_RTMP_PORT)');
    const listens = req.kind === 'srt' && !pullsSource(req);
    if (listens && !this.#d.srtPorts) throw new IngressError('notAvailable', 'kind: SRT ingest is not enabled on this server (REELTIME_INGRESS_SRT_PORTS)');
    const ingressId = `in_${randomBytes(9).toString('hex')}`;
    // RTMP: the key names its ingress (one port for all). SRT listener: the passphrase (SRT's AES key, 10 to 79
    // characters). Sources reeltime connects to have none: their URL says how to reach them.
    const secret = randomBytes(24).toString('base64url');
    const streamKey = req.kind === 'rtmp' ? `${ingressId}.${secret}` : listens ? secret : undefined;
    // Two creates racing for one SRT port: the unique index refuses the second, which takes the next free one.
    for (let attempt = 0; ; attempt++) {
      const port = listens ? await this.#freeSrtPort() : undefined;
      const now = this.#d.clock.now();
      const ingress: Ingress = {
        ...req,
        ingressId,
        appId,
        ...(streamKey !== undefined ? { streamKey } : {}),
        state: 'waiting',
        createdMs: now,
        updatedMs: now,
        ...(port !== undefined ? { port } : {}),
      };
      try {
        await this.#d.store.insert(ingress);
      } catch (e) {
        if (e instanceof ParticipantTakenError) throw new IngressError('uidTaken', `uid: ${req.uid} already has an ingress in channel "${req.cname}"`);
        if (e instanceof PortTakenError && attempt < 5) continue;
        throw e;
      }
      this.#d.log.info({ appId, ingressId, cname: req.cname, uid: req.uid, kind: req.kind, port }, 'ingress: created');
      return this.view(ingress);
    }
  }

  async #freeSrtPort(): Promise<number> {
    const range = this.#d.srtPorts!;
    const used = await this.#d.store.portsInUse();
    for (let p = range.first; p <= range.last; p++) if (!used.has(p)) return p;
    throw new IngressError('noPortFree', `kind: every SRT port (${range.first}-${range.last}) has an ingress; delete one or widen REELTIME_INGRESS_SRT_PORTS`);
  }

  async get(appId: string, ingressId: string): Promise<IngressView> {
    const i = await this.#d.store.get(ingressId);
    if (!i || i.appId !== appId) throw new IngressError('notFound');
    return this.view(i);
  }

  async list(appId: string): Promise<readonly IngressView[]> {
    return (await this.#d.store.list(appId)).map((i) => this.view(i));
  }

  /** Deletes an ingress; a publish of it in this process ends (the source is disconnected, the participant leaves). */
  async remove(appId: string, ingressId: string): Promise<void> {
    if (!(await this.#d.store.remove(appId, ingressId))) throw new IngressError('notFound');
    this.#active.get(ingressId)?.stop('the ingress was deleted');
    this.#d.log.info({ appId, ingressId }, 'ingress: deleted');
  }

  /** The guard's word on a pull source, as a validation error naming `url`. */
  async #checkSource(url: string, kind: Ingress['kind']): Promise<void> {
    try {
      if (kind === 'whep') await checkOutboundUrl(url, this.#d.policy);
      else {
        const u = new URL(url);
        await resolveOutboundHost(u.hostname, this.#d.policy, u);
      }
    } catch (e) {
      if (e instanceof OutboundUrlError) throw new IngressError('invalidParameter', `url: ${e.message}`);
      throw e;
    }
  }

  /**
   * An RTMP publish with `streamKey`: refused unless it is the key of an RTMP ingress that is not publishing already;
   * else its media goes through ffmpeg (H.264 as is, AAC to Opus) into the channel as the ingress's uid.
   */
  async authorizeRtmp(streamKey: string, disconnect: (reason: string) => void): Promise<PublishDecision> {
    const id = streamKey.split('.')[0] ?? '';
    const i = /^in_[0-9a-f]{18}$/.test(id) ? await this.#d.store.get(id) : undefined;
    if (i?.kind !== 'rtmp' || !i.streamKey || !safeEqual(i.streamKey, streamKey)) {
      this.#d.log.warn({ ingressId: i?.ingressId }, 'ingress: RTMP publish refused (stream key)');
      return { ok: false, reason: KEY_REFUSED };
    }
    if (this.#active.has(i.ingressId)) return { ok: false, reason: 'this ingress is publishing already' };
    return this.#startPublish(i, disconnect);
  }

  /** Keeps the plan a publish settled on (its admission weighs it) and says when it is other than the source as it came. */
  #onPlan(i: Ingress): (plan: MediaPlan) => void {
    return (plan) => {
      this.#plans.set(i.ingressId, plan);
      if (plan !== FIRST_PLAN) this.#d.log.info({ ingressId: i.ingressId, kinds: plan.kinds, video: plan.video }, 'ingress: source published as it allows');
    };
  }

  /** An accepted RTMP publish: its FLV is taken at once, and published once it shows its kinds (`flvPublish`). */
  #startPublish(i: Ingress, disconnect: (reason: string) => void): Promise<PublishDecision> {
    return new Promise<PublishDecision>((resolve) => {
      const flv = new HeldFlv();
      const start = flvPublish(flv, { startTimeoutMs: this.#d.startTimeoutMs, onPlan: this.#onPlan(i) });
      void this.#run(i, {
        start: (into, signal) => {
          resolve({ ok: true, sink: { flv, end: (reason) => this.#active.get(i.ingressId)?.stop(reason) } });
          return start(into, signal);
        },
        disconnect,
        exitState: 'failed',
        onFailure: () => resolve({ ok: false, reason: 'the ingress could not publish' }),
      });
    });
  }

  /**
   * Runs the SRT listener of an SRT ingress until a caller has come and gone (or it is stopped): ffmpeg listens on
   * the ingress's port, takes one caller that knows the passphrase, and publishes it. Resolves when it has ended.
   */
  runSrt(i: Ingress, host: string): Promise<PublishOutcome> {
    if (i.kind !== 'srt' || i.port === undefined || !i.streamKey) return Promise.resolve('ended');
    // A listener waits for its caller as long as it takes: no start timeout.
    return this.#runIngestFfmpeg(i, { kind: 'srt', host, port: i.port, passphrase: i.streamKey }, undefined);
  }

  /**
   * Connects to a source reeltime pulls (RTSP, SRT caller, WHEP) and publishes it until it ends; resolves when it has
   * ended. The host is checked by the outbound guard at every connection: ffmpeg is given the checked address, and
   * a WHEP source's requests connect to the address the guard checked (guardedFetch), its answer's ICE candidates
   * kept only where the guard allows them.
   */
  async runPull(i: Ingress): Promise<PublishOutcome> {
    if (i.url === undefined) return 'ended';
    if (i.kind === 'whep') {
      const source = i.url;
      return this.#run(i, {
        start: ({ endpoint, token }, signal) =>
          startWhepRelay({ source, sourceToken: i.token, policy: this.#d.policy, endpoint, token, startTimeoutMs: this.#d.startTimeoutMs, signal }),
        disconnect: () => undefined,
        exitState: 'waiting',
        onFailure: () => undefined,
      });
    }
    if (i.kind !== 'rtsp' && i.kind !== 'srt') return 'ended';
    const target = new URL(i.url);
    try {
      const { address } = await resolveOutboundHost(target.hostname, this.#d.policy, target);
      target.hostname = bracketed(address);
    } catch (e) {
      const why = e instanceof OutboundUrlError ? `url: ${e.message}` : (e as Error).message;
      this.#d.log.warn({ ingressId: i.ingressId, why }, 'ingress: source refused by the outbound guard');
      await this.#d.store.setState(i.ingressId, 'failed', why, this.#d.clock.now()).catch(() => undefined);
      return 'ended';
    }
    const input: IngestInput = i.kind === 'rtsp' ? { kind: 'rtsp', url: target.href, transport: i.transport ?? 'tcp' } : { kind: 'srt-caller', url: target.href };
    return this.#runIngestFfmpeg(i, input, this.#d.startTimeoutMs);
  }

  /** Publishes what one ingest ffmpeg reads from `input` (an SRT listener or a pulled source) until it ends. */
  #runIngestFfmpeg(i: Ingress, input: IngestInput, startTimeoutMs: number | undefined): Promise<PublishOutcome> {
    return this.#run(i, {
      start: ffmpegPublish((videoPort, audioPort, plan) => spawnIngestFfmpeg(videoPort, audioPort, input, plan), {
        startTimeoutMs,
        retry: 'retry',
        onPlan: this.#onPlan(i),
        pictureEnd: (plan) => ingestPictureEnd(input, plan),
      }),
      disconnect: () => undefined,
      exitState: 'waiting',
      onFailure: () => undefined,
    });
  }

  /** One publish of `i`, from its media process's start to its end; resolves when it has ended. */
  #run(i: Ingress, plan: PublishPlan): Promise<PublishOutcome> {
    const log = this.#d.log.child({ ingressId: i.ingressId, cname: i.cname, uid: i.uid });
    const q = new URLSearchParams({ uid: i.uid });
    const endpoint = `${this.#d.baseUrl()}/rtc/v1/apps/${encodeURIComponent(i.appId)}/channels/${encodeURIComponent(i.cname)}/whip?${q}`;
    const token = this.#d.appCertificate ? buildRtcTokenWithUid(i.appId, this.#d.appCertificate, i.cname, Number(i.uid), 1, TOKEN_SECONDS, TOKEN_SECONDS) : undefined;
    // ffmpeg's messages may quote its input URL, an SRT passphrase or a camera's password included.
    const secrets = secretsOf(i).flatMap((x) => [x, encodeURIComponent(x)]);
    const redact = (text: string) => secrets.reduce((t, x) => t.split(x).join('[redacted]'), text);
    let publisher: RtpPublisher | undefined;
    // Ends a start still under way (an SRT listener waiting for its caller, a source not answering yet).
    const aborted = new AbortController();
    let ended = false;
    let admitted = false;
    /** The units this publish holds of the admission, once admitted. */
    let cost = this.#d.cost;
    let outcome: PublishOutcome = 'ended';
    let done: () => void = () => undefined;
    const finished = new Promise<PublishOutcome>((resolve) => (done = () => resolve(outcome)));
    const setState = (state: IngressState, error?: string) => {
      const now = this.#d.clock.now();
      return this.#d.store.setState(i.ingressId, state, error, now, now + PUBLISH_LIVE_MS).catch((e: unknown) => log.warn({ err: e }, 'ingress: state not stored'));
    };
    // While publishing, this process renews the state's time, so other processes show a publish it no longer runs
    // (it crashed) as `waiting` once that time has gone by.
    let renewal: TimerHandle | undefined;
    const keepLive = () => {
      renewal = this.#d.clock.setTimeout(() => {
        void this.#d.store.keepLive(i.ingressId, this.#d.clock.now() + PUBLISH_LIVE_MS).catch((e: unknown) => log.warn({ err: e }, 'ingress: publish not renewed'));
        keepLive();
      }, PUBLISH_LIVE_MS / 3);
    };
    const end = (state: IngressState, reason: string, error?: string) => {
      if (ended) return;
      ended = true;
      if (renewal) this.#d.clock.clearTimeout(renewal);
      this.#active.delete(i.ingressId);
      this.#publishing.delete(i.ingressId);
      log.info({ reason: redact(reason) }, 'ingress: publish ended');
      if (admitted) this.#d.admission.release(cost);
      this.#plans.delete(i.ingressId);
      aborted.abort();
      plan.disconnect(reason);
      // The participant leaves first: whoever reads the new state finds it gone from the channel.
      void Promise.resolve(publisher?.stop())
        .catch(() => undefined)
        .then(() => setState(state, error && redact(error)))
        .finally(done);
    };
    this.#active.set(i.ingressId, { kind: i.kind, stop: (reason) => end('waiting', reason) });
    const publishLocal = this.#d.publishLocal;
    const inProcess: PublishInProcess | undefined = publishLocal && ((kinds) => publishLocal({ appId: i.appId, cname: i.cname, uid: Number(i.uid), token, profile: 'communication', kinds }));
    plan.start({ endpoint, token, inProcess }, aborted.signal).then(
      (p) => {
        publisher = p;
        if (ended) return void p.stop();
        cost = this.#plans.get(i.ingressId)?.video === 'transcode' ? this.#d.transcodeCost : this.#d.cost;
        if (!this.#d.admission.admit(cost)) {
          outcome = 'no-room';
          log.warn('ingress: no room in this process');
          return end('failed', NO_ROOM, NO_ROOM);
        }
        admitted = true;
        log.info({ units: cost }, 'ingress: publishing');
        this.#publishing.set(i.ingressId, i.kind);
        void setState('publishing');
        keepLive();
        void p.exited.then((why) => end(plan.exitState, 'the source ended', plan.exitState === 'failed' ? `media pipeline ended: ${explainIngestError(why)}` : undefined));
      },
      (e: unknown) => {
        const why = explainIngestError((e as Error).message);
        if (!ended) log.warn({ why: redact(why) }, 'ingress: publish failed');
        plan.onFailure();
        end('failed', why, why);
      },
    );
    return finished;
  }

  /** How many ingresses of each kind (but WHEP, not built) publish from this process now. */
  publishingByKind(): ReadonlyMap<Ingress['kind'], number> {
    const out = new Map<Ingress['kind'], number>([
      ['rtmp', 0],
      ['srt', 0],
      ['rtsp', 0],
    ]);
    for (const kind of this.#publishing.values()) out.set(kind, (out.get(kind) ?? 0) + 1);
    return out;
  }

  /** Ends the publish (or the waiting SRT listener) of an ingress in this process, if any. */
  stopPublish(ingressId: string, reason: string): void {
    this.#active.get(ingressId)?.stop(reason);
  }

  /**
   * Ends this process's RTMP publishes whose ingress is gone: deleted through another process, whose DELETE could
   * only end a publish it held itself (the source loops do the same for the kinds they run).
   */
  async endDeleted(): Promise<void> {
    const pushing = [...this.#active].filter(([, a]) => a.kind === 'rtmp').map(([id]) => id);
    if (pushing.length === 0) return;
    const stored = new Set((await this.#d.store.listKinds(['rtmp'])).map((i) => i.ingressId));
    for (const id of pushing) if (!stored.has(id)) this.stopPublish(id, 'the ingress was deleted');
  }

  /** Ends every publish of this process (server stop). */
  close(): void {
    for (const a of [...this.#active.values()]) a.stop('the server is stopping');
  }
}
