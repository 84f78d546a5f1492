/** A layer quiet this long while another one goes on sending is paused (docs/channel.md, "Simulcast"). */
export const PAUSED_AFTER_MS = 500;
/** A layer quiet this long is not sending, whatever the others do. */
export const SILENT_AFTER_MS = 2000;

interface Run {
  /** When its current run of packets began: a gap over PAUSED_AFTER_MS starts a new one. */
  readonly since: number;
  last: number;
}

/**
 * When each simulcast layer's packets come, to tell an encoding its sender paused (no bandwidth or CPU for it) from
 * a stall of this process or of the network, which holds every layer up, so that they all arrive together after
 * it. Pure: the fan-out passes each packet's arrival time. A layer is **paused** when it has been quiet for
 * PAUSED_AFTER_MS while another layer has been sending without a break since before its last packet; it is
 * **sending** when it has a packet within SILENT_AFTER_MS and is not paused.
 */
export class LayerActivity<L> {
  readonly #runs = new Map<L, Run>();

  packet(layer: L, at: number): void {
    const run = this.#runs.get(layer);
    if (!run || at - run.last > PAUSED_AFTER_MS) this.#runs.set(layer, { since: at, last: at });
    else run.last = at;
  }

  paused(layer: L, at: number): boolean {
    const own = this.#runs.get(layer);
    if (!own || at - own.last < PAUSED_AFTER_MS) return false;
    for (const [other, run] of this.#runs) {
      if (other !== layer && run.since <= own.last && at - run.last < PAUSED_AFTER_MS) return true;
    }
    return false;
  }

  sending(layer: L, at: number): boolean {
    const own = this.#runs.get(layer);
    return own !== undefined && at - own.last < SILENT_AFTER_MS && !this.paused(layer, at);
  }
}
