import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock/index.ts';
import type { Logger } from '../log/index.ts';
import type { IngressService } from './service.ts';
import type { IngressStore } from './store.ts';
import { pullsSource, type Ingress } from './types.ts';

/** How often the ingresses are read again (ones created or deleted through another process). */
const RECONCILE_MS = 2_000;
/** After a run ends, the next starts after this (doubling while they end fast, e.g. a port in use, a source down). */
const RESTART_MIN_MS = 250;
const RESTART_MAX_MS = 10_000;
/** A run that lasted this long was a real publish: the next restart is quick again. */
const HEALTHY_RUN_MS = 10_000;
/** A pull's claim lasts this long unless renewed (every third of it) by the process pulling. */
const CLAIM_TTL_MS = 15_000;

export interface SourceLoopsOptions {
  readonly store: IngressStore;
  readonly service: IngressService;
  readonly clock: Clock;
  readonly log: Logger;
  /** Where SRT listeners bind; undefined: this process runs no SRT listener (SRT off). */
  readonly srtHost: string | undefined;
}

/**
 * The sources a `channel` process runs itself, each in a loop that starts it again after it ends, so a source can
 * come back: one SRT listener per SRT ingress (each on its own UDP port; every channel process runs them, one per
 * host), and the pulls (RTSP, SRT caller, WHEP), each run by one process at a time, the one holding its claim in the
 * database. A loop stops when its ingress is deleted (here or in another process); so does an RTMP publish.
 */
export class SourceLoops {
  readonly #o: SourceLoopsOptions;
  readonly #loops = new Map<string, { stopped: boolean }>();
  /** Names this process's pull claims. */
  readonly #holder = `${process.pid}-${randomBytes(6).toString('hex')}`;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(o: SourceLoopsOptions) {
    this.#o = o;
  }

  async start(): Promise<void> {
    await this.reconcile();
    this.#timer = setInterval(() => void this.reconcile().catch((e: unknown) => this.#o.log.warn({ err: e }, 'ingress: source loops not reconciled')), RECONCILE_MS);
    this.#timer.unref();
  }

  /** Starts a loop for each ingress this process runs without one; stops the ones whose ingress is gone. */
  async reconcile(): Promise<void> {
    if (this.#closed) return;
    const all = (await this.#o.store.listKinds(['srt', 'rtsp', 'whep'])).filter((i) => pullsSource(i) || this.#o.srtHost !== undefined);
    const ids = new Set(all.map((i) => i.ingressId));
    for (const [id, loop] of this.#loops) {
      if (ids.has(id)) continue;
      loop.stopped = true;
      this.#loops.delete(id);
      this.#o.service.stopPublish(id, 'the ingress was deleted');
    }
    for (const i of all) if (!this.#loops.has(i.ingressId)) this.#run(i);
    await this.#o.service.endDeleted();
  }

  #run(i: Ingress): void {
    const loop = { stopped: false };
    this.#loops.set(i.ingressId, loop);
    const pull = pullsSource(i);
    void (async () => {
      let delay = RESTART_MIN_MS;
      while (!loop.stopped && !this.#closed) {
        if (pull && !(await this.#claim(i))) {
          await sleep(RECONCILE_MS);
          continue;
        }
        const started = Date.now();
        const renewal = pull ? this.#keepClaim(i) : undefined;
        const outcome = await (pull ? this.#o.service.runPull(i) : this.#o.service.runSrt(i, this.#o.srtHost!));
        clearInterval(renewal);
        if (loop.stopped || this.#closed) break;
        if (outcome === 'no-room' && pull) {
          // Another process with room may take the source meanwhile; this one tries again when its claim would
          // have run out.
          await this.#o.store.release(i.ingressId, this.#holder).catch(() => undefined);
          await sleep(CLAIM_TTL_MS);
          continue;
        }
        delay = Date.now() - started >= HEALTHY_RUN_MS ? RESTART_MIN_MS : Math.min(delay * 2, RESTART_MAX_MS);
        await sleep(delay);
        // Deleted meanwhile (maybe through another process): stop here rather than run once more.
        if (!(await this.#o.store.get(i.ingressId).catch(() => i))) break;
      }
      if (pull) await this.#o.store.release(i.ingressId, this.#holder).catch(() => undefined);
      if (this.#loops.get(i.ingressId) === loop) this.#loops.delete(i.ingressId);
    })();
  }

  #claim(i: Ingress): Promise<boolean> {
    return this.#o.store.claim(i.ingressId, this.#holder, this.#o.clock.now(), CLAIM_TTL_MS).catch((e: unknown) => {
      this.#o.log.warn({ ingressId: i.ingressId, err: e }, 'ingress: pull claim not taken');
      return false;
    });
  }

  /** Renews the claim while a pull runs; a claim lost (another process took it after a stall) ends this pull. */
  #keepClaim(i: Ingress): NodeJS.Timeout {
    const timer = setInterval(() => {
      void this.#claim(i).then((held) => {
        if (!held) this.#o.service.stopPublish(i.ingressId, 'another process pulls this source now');
      });
    }, CLAIM_TTL_MS / 3);
    timer.unref();
    return timer;
  }

  close(): void {
    this.#closed = true;
    clearInterval(this.#timer);
    for (const [id, loop] of this.#loops) {
      loop.stopped = true;
      this.#o.service.stopPublish(id, 'the server is stopping');
    }
    this.#loops.clear();
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
