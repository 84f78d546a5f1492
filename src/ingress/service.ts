import { randomBytes } from 'node:crypto';
import { buildRtcTokenWithUid } from '@reeltime/token';
import { startRtpPublisher, type RtpPublisher } from '../channel/index.ts';
import type { Clock } from '../clock/index.ts';
import { safeEqual } from '../http/index.ts';
import type { Logger } from '../log/index.ts';
import { checkOutboundUrl, OutboundUrlError, resolveOutboundHost, type OutboundPolicy } from '../net/index.ts';
import { IngressError } from './errors.ts';
import { spawnIngestFfmpeg } from './pipeline.ts';
import type { PublishDecision } from './rtmp/index.ts';
import { type IngressStore, ParticipantTakenError } from './store.ts';
import type { Ingress, IngressState } from './types.ts';
import { validateIngressRequest } from './validate.ts';

/** An ingress as the API answers it: push kinds add where to push (OBS's "Server" and "Stream Key"). */
export interface IngressView {
  readonly ingressId: string;
  readonly cname: string;
  readonly uid: string;
  readonly kind: Ingress['kind'];
  readonly url?: string;
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
  /** How long a pushed source may take before both its audio and its video reach the channel. */
  readonly startTimeoutMs: number;
}

/** The publisher token's lifetime; the participant is admitted with it once, at its join. */
const TOKEN_SECONDS = 24 * 3600;
/** Whoever presents a wrong or unknown key learns only this. */
const KEY_REFUSED = 'stream key refused';

interface ActivePublish {
  stop(reason: string): void;
}

/** Ingresses: the create/get/list/delete of the API, and the publishes their sources make. */
export class IngressService {
  readonly #d: IngressServiceDeps;
  readonly #active = new Map<string, ActivePublish>();

  constructor(deps: IngressServiceDeps) {
    this.#d = deps;
  }

  view(i: Ingress): IngressView {
    const server = i.kind === 'rtmp' ? this.#d.rtmpServerUrl() : undefined;
    return {
      ingressId: i.ingressId,
      cname: i.cname,
      uid: i.uid,
      kind: i.kind,
      ...(i.url !== undefined ? { url: i.url } : {}),
      ...(server && i.streamKey ? { push: { server, streamKey: i.streamKey, url: `${server}/${i.streamKey}` } } : {}),
      state: i.state,
      ...(i.error !== undefined ? { error: i.error } : {}),
      createdMs: i.createdMs,
      updatedMs: i.updatedMs,
    };
  }

  async create(appId: string, body: unknown): Promise<IngressView> {
    const req = validateIngressRequest(body);
    if (req.url !== undefined) await this.#checkSource(req.url, req.kind);
    if (req.kind !== 'rtmp') throw new IngressError('notAvailable', `kind: "${req.kind}" ingest is not available yet in this version (RTMP is)`);
    if (!this.#d.rtmpServerUrl()) throw new IngressError('notAvailable', 'kind: RTMP ingest is not enabled on this server (REELTIME_INGRESS_RTMP_PORT)');
    const now = this.#d.clock.now();
    const ingressId = `in_${randomBytes(9).toString('hex')}`;
    const ingress: Ingress = {
      ...req,
      ingressId,
      appId,
      streamKey: `${ingressId}.${randomBytes(24).toString('base64url')}`,
      state: 'waiting',
      createdMs: now,
      updatedMs: now,
    };
    try {
      await this.#d.store.insert(ingress);
    } catch (e) {
      if (e instanceof ParticipantTakenError) throw new IngressError('uidTaken', `uid: ${req.uid} already has an ingress in channel "${req.cname}"`);
      throw e;
    }
    this.#d.log.info({ appId, ingressId, cname: req.cname, uid: req.uid, kind: req.kind }, 'ingress: created');
    return this.view(ingress);
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

  #startPublish(i: Ingress, disconnect: (reason: string) => void): Promise<PublishDecision> {
    const log = this.#d.log.child({ ingressId: i.ingressId, cname: i.cname, uid: i.uid });
    const q = new URLSearchParams({ uid: i.uid });
    const endpoint = `${this.#d.baseUrl()}/rtc/v1/apps/${encodeURIComponent(i.appId)}/channels/${encodeURIComponent(i.cname)}/whip?${q}`;
    const token = this.#d.appCertificate ? buildRtcTokenWithUid(i.appId, this.#d.appCertificate, i.cname, Number(i.uid), 1, TOKEN_SECONDS, TOKEN_SECONDS) : undefined;
    let publisher: RtpPublisher | undefined;
    let ended = false;
    const setState = (state: IngressState, error?: string) =>
      this.#d.store.setState(i.ingressId, state, error, this.#d.clock.now()).catch((e: unknown) => log.warn({ err: e }, 'ingress: state not stored'));
    const end = (state: IngressState, reason: string, error?: string) => {
      if (ended) return;
      ended = true;
      this.#active.delete(i.ingressId);
      log.info({ reason }, 'ingress: publish ended');
      void publisher?.stop();
      disconnect(reason);
      void setState(state, error);
    };
    this.#active.set(i.ingressId, { stop: (reason) => end('waiting', reason) });
    return new Promise<PublishDecision>((resolve) => {
      startRtpPublisher({
        endpoint,
        token,
        video: 'h264',
        startTimeoutMs: this.#d.startTimeoutMs,
        spawn: (videoPort, audioPort) => {
          const child = spawnIngestFfmpeg(videoPort, audioPort);
          child.stdin!.on('error', () => undefined); // a dead ffmpeg's EPIPE: its exit says why
          resolve({ ok: true, sink: { flv: child.stdin!, end: (reason) => end('waiting', reason) } });
          return child;
        },
      }).then(
        (p) => {
          publisher = p;
          if (ended) return void p.stop();
          log.info('ingress: publishing');
          void setState('publishing');
          void p.exited.then((why) => end('failed', 'the media pipeline ended', `media pipeline ended: ${why}`));
        },
        (e: unknown) => {
          const why = (e as Error).message;
          log.warn({ why }, 'ingress: publish failed');
          resolve({ ok: false, reason: 'the ingress could not publish' });
          end('failed', why, why);
        },
      );
    });
  }

  /** Ends every publish of this process (server stop). */
  close(): void {
    for (const a of [...this.#active.values()]) a.stop('the server is stopping');
  }
}
