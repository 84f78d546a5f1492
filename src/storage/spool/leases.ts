import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Clock, TimerHandle } from '../../clock/index.ts';
import type { Logger } from '../../log/index.ts';
import { processTag, taggedProcessIsGone } from '../../process/index.ts';
import type { FileRow, SpoolStore } from './store.ts';

/** Default name of the spool a process uses: only processes that see the same files share one. */
export function spoolNode(spoolDir: string): string {
  return `${hostname()}:${spoolDir}`;
}

export interface SpoolLeaseDeps {
  readonly store: Pick<SpoolStore, 'claimOrphans' | 'pendingOwners' | 'renewLeases' | 'releaseLeases'>;
  readonly clock: Clock;
  readonly log: Logger;
  readonly leaseMs: number;
  /** The spool this process reads files from (see spoolNode). */
  readonly node: string;
  /** Pending rows this process took over: left by a closed process, or by one whose lease ran out. */
  readonly adopt: (rows: FileRow[]) => void;
  /** The ids of the rows this process holds now (asked about by a renewal). */
  readonly holding: () => ReadonlySet<string>;
  /** After a renewal: of the rows `asked` about, those not in `held` are someone else's now. */
  readonly retain: (asked: ReadonlySet<string>, held: ReadonlySet<string>) => void;
}

/**
 * This process's claims on manifest rows of its node. Each row names an owner and a lease end; the owner renews
 * every `leaseMs / 3` on the clock, and a row whose lease ran out (its owner crashed or stalled) is adopted by the
 * next process of the node that looks. An owner id carries its process's tag, so a process of the same machine
 * takes the rows of one that has certainly died (SIGKILL, OOM) at once instead of after its lease. Claims are
 * conditional UPDATEs, so two processes never both win a row. See docs/storage.md (multi-process).
 */
export class SpoolLeases {
  readonly owner = ownerId();
  readonly #d: SpoolLeaseDeps;
  #tick: TimerHandle | undefined;
  #stopped = false;

  constructor(deps: SpoolLeaseDeps) {
    this.#d = deps;
  }

  get node(): string {
    return this.#d.node;
  }

  /** The lease columns of a row this process enqueues: it holds it from the start. */
  claimNew(now: number): Pick<FileRow, 'node' | 'owner' | 'lease_until'> {
    return { node: this.#d.node, owner: this.owner, lease_until: now + this.#d.leaseMs };
  }

  /** Adopts what a previous process left in this node's spool, then keeps renewing. */
  async start(): Promise<void> {
    await this.#claimOrphans();
    this.#scheduleTick();
  }

  /** No more renewals or adoptions. */
  stop(): void {
    this.#stopped = true;
    if (this.#tick) this.#d.clock.clearTimeout(this.#tick);
  }

  /** Gives this process's claims up, so the node's next process starts at once instead of after a lease. */
  async release(): Promise<void> {
    try {
      await this.#d.store.releaseLeases(this.owner);
    } catch (e) {
      this.#d.log.warn({ err: e }, 'could not release spool leases; they expire by themselves');
    }
  }

  async #claimOrphans(): Promise<void> {
    const gone = (await this.#d.store.pendingOwners(this.#d.node, this.owner)).filter(ownerHasDied);
    const now = this.#d.clock.now();
    const rows = await this.#d.store.claimOrphans(this.#d.node, this.owner, now, now + this.#d.leaseMs, gone);
    if (rows.length > 0) this.#d.log.info({ files: rows.length }, 'resuming uploads left in the spool');
    this.#d.adopt(rows);
  }

  #scheduleTick(): void {
    if (this.#stopped) return;
    this.#tick = this.#d.clock.setTimeout(() => {
      void this.#renew().finally(() => this.#scheduleTick());
    }, Math.floor(this.#d.leaseMs / 3));
  }

  /** Renews this process's claims, lets go of rows another process took over, and adopts orphans. */
  async #renew(): Promise<void> {
    if (this.#stopped) return;
    try {
      // Asked before the UPDATE: a row enqueued while it runs (a slice whose manifest row waited for the database
      // comes in as the database comes back, just when the renewals do) is not in its answer, and is still ours.
      const asked = this.#d.holding();
      const held = await this.#d.store.renewLeases(this.owner, this.#d.clock.now() + this.#d.leaseMs);
      // Rows someone else owns now (this process stalled past its lease): stop, but keep the files.
      this.#d.retain(asked, held);
      await this.#claimOrphans();
    } catch (e) {
      this.#d.log.warn({ err: e }, 'spool lease renewal failed; retrying');
    }
  }
}

/** A random owner id, followed by this process's tag where it has one (`<hex>@<tag>`). */
function ownerId(): string {
  const tag = processTag();
  const random = randomBytes(8).toString('hex');
  return tag === '' ? random : `${random}@${tag}`;
}

function ownerHasDied(owner: string): boolean {
  const at = owner.indexOf('@');
  return at > 0 && taggedProcessIsGone(owner.slice(at + 1));
}
