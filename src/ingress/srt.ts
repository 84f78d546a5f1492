import type { Logger } from '../log/index.ts';
import type { IngressService } from './service.ts';
import type { IngressStore } from './store.ts';
import type { Ingress } from './types.ts';

/** How often the SRT ingresses are read again (ones created or deleted through another process). */
const RECONCILE_MS = 2_000;
/** After a listener ends, the next starts after this (doubling while they end fast, e.g. a port in use). */
const RESTART_MIN_MS = 250;
const RESTART_MAX_MS = 10_000;
/** A run that lasted this long was a real publish: the next restart is quick again. */
const HEALTHY_RUN_MS = 10_000;

/**
 * The SRT listeners of a `channel` process: one per SRT ingress (each on its own UDP port), started again after each
 * caller leaves, so a source can come back; stopped when its ingress is deleted (here or in another process).
 */
export class SrtListeners {
  readonly #loops = new Map<string, { stopped: boolean }>();
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(
    private readonly store: IngressStore,
    private readonly service: IngressService,
    private readonly host: string,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    await this.reconcile();
    this.#timer = setInterval(() => void this.reconcile().catch((e: unknown) => this.log.warn({ err: e }, 'ingress: SRT listeners not reconciled')), RECONCILE_MS);
    this.#timer.unref();
  }

  /** Starts a listener for each SRT ingress without one; stops the ones whose ingress is gone. */
  async reconcile(): Promise<void> {
    if (this.#closed) return;
    const all = await this.store.listKind('srt');
    const ids = new Set(all.map((i) => i.ingressId));
    for (const [id, loop] of this.#loops) {
      if (ids.has(id)) continue;
      loop.stopped = true;
      this.#loops.delete(id);
      this.service.stopPublish(id, 'the ingress was deleted');
    }
    for (const i of all) if (!this.#loops.has(i.ingressId)) this.#run(i);
  }

  #run(i: Ingress): void {
    const loop = { stopped: false };
    this.#loops.set(i.ingressId, loop);
    void (async () => {
      let delay = RESTART_MIN_MS;
      while (!loop.stopped && !this.#closed) {
        const started = Date.now();
        await this.service.runSrt(i, this.host);
        if (loop.stopped || this.#closed) break;
        delay = Date.now() - started >= HEALTHY_RUN_MS ? RESTART_MIN_MS : Math.min(delay * 2, RESTART_MAX_MS);
        await new Promise((resolve) => setTimeout(resolve, delay).unref());
        // Deleted meanwhile (maybe through another process): stop here rather than listen once more.
        if (!(await this.store.get(i.ingressId).catch(() => i))) break;
      }
      if (this.#loops.get(i.ingressId) === loop) this.#loops.delete(i.ingressId);
    })();
  }

  close(): void {
    this.#closed = true;
    clearInterval(this.#timer);
    for (const [id, loop] of this.#loops) {
      loop.stopped = true;
      this.service.stopPublish(id, 'the server is stopping');
    }
    this.#loops.clear();
  }
}
