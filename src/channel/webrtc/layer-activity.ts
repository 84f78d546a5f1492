/** A layer quiet this long while another one goes on sending is paused (docs/channel.md, "Simulcast"). */
export const PAUSED_AFTER_MS = 500;
/** A layer quiet this long is not sending, whatever the others do. */
export const SILENT_AFTER_MS = 2000;
/**
 * A run of packets this long before a layer counts as sending: one that sends a frame now and then (an encoder
 * short of CPU at a frame or two a second) stays paused instead of flapping at every frame.
 */
export const SENDING_AFTER_MS = 300;

interface Run {
  /** When its current run of packets began: a gap over PAUSED_AFTER_MS starts a new one. */
  readonly since: number;
  last: number;
}

/**
 * When each simulcast layer's packets come, to tell an encoding its sender paused (no bandwidth or CPU for it) from
 * a stall of this process or of the network, which holds every layer up, so that they all arrive together after
 * it. Pure: the fan-out passes each packet's arrival time. A layer is **paused** when it has been quiet for
 * PAUSED_AFTER_MS while another layer has been sending without a break since before its last packet. It becomes
 * **sending** once a run of its packets has lasted SENDING_AFTER_MS, and stays so until it is paused or silent for
 * SILENT_AFTER_MS: a stall, which breaks every layer's run at once, changes nothing.
 */
export class LayerActivity<L> {
  readonly #runs = new Map<L, Run>();
  readonly #sending = new Set<L>();

  /**
   * A packet of `layer` arrived at `at`; every layer's state is brought up to then (packets of any layer are what
   * moves time here). Whether the set of sending layers changed.
   */
  packet(layer: L, at: number): boolean {
    const run = this.#runs.get(layer);
    if (!run || at - run.last > PAUSED_AFTER_MS) this.#runs.set(layer, { since: at, last: at });
    else run.last = at;
    let changed = false;
    for (const [l, r] of this.#runs) {
      const sending = at - r.last < SILENT_AFTER_MS && !this.paused(l, at) && (this.#sending.has(l) || r.last - r.since >= SENDING_AFTER_MS);
      if (sending === this.#sending.has(l)) continue;
      changed = true;
      if (sending) this.#sending.add(l);
      else this.#sending.delete(l);
    }
    return changed;
  }

  paused(layer: L, at: number): boolean {
    const own = this.#runs.get(layer);
    if (!own || at - own.last < PAUSED_AFTER_MS) return false;
    for (const [other, run] of this.#runs) {
      if (other !== layer && run.since <= own.last && at - run.last < PAUSED_AFTER_MS) return true;
    }
    return false;
  }

  /** As of the latest packet of any layer. */
  sending(layer: L): boolean {
    return this.#sending.has(layer);
  }
}
