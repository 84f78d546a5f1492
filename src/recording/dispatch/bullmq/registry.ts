import type { RedisConnection } from '../../../redis/index.ts';
import type { Area } from '../../validation/types.ts';
import type { PlacementNeeds, WorkerLabels } from './labels.ts';

interface Entry extends WorkerLabels {
  /** Unix ms by the announcing recorder's clock. */
  readonly expiresAt: number;
}

/** Entries this long past their expiry are deleted by whoever reads them (a recorder that died without a word). */
const PRUNE_AFTER_MS = 60_000;

/**
 * The live recorders and their labels: one Redis hash field per recorder, announced again every third of its
 * lease; readers skip entries past their expiry. Lets an API process refuse at once a session no recorder fits.
 */
export class WorkerRegistry {
  readonly #key: string;

  constructor(private readonly redis: RedisConnection) {
    this.#key = redis.key('recording', 'workers');
  }

  async announce(labels: WorkerLabels, now: number, ttlMs: number): Promise<void> {
    const entry: Entry = { id: labels.id, region: labels.region, expiresAt: now + ttlMs };
    await this.redis.commands.hset(this.#key, labels.id, JSON.stringify(entry));
  }

  async withdraw(id: string): Promise<void> {
    await this.redis.commands.hdel(this.#key, id);
  }

  async live(now: number): Promise<WorkerLabels[]> {
    const all = await this.redis.commands.hgetall(this.#key);
    const out: WorkerLabels[] = [];
    for (const [id, raw] of Object.entries(all)) {
      let e: Entry;
      try {
        e = JSON.parse(raw) as Entry;
      } catch {
        continue;
      }
      if (e.expiresAt > now) out.push({ id: e.id, region: e.region ?? undefined });
      else if (e.expiresAt + PRUNE_AFTER_MS < now) await this.redis.commands.hdel(this.#key, id).catch(() => undefined);
    }
    return out;
  }
}

/** What a session asks of its recorder, from its resource (acquire's fields) and the lease rows. */
export async function placementNeeds(
  leases: { holdersOf(resourceIds: readonly string[]): Promise<string[]> },
  resource: { readonly region: Area | undefined; readonly excludeResourceIds: readonly string[] },
): Promise<PlacementNeeds> {
  return { region: resource.region, excludedWorkers: await leases.holdersOf(resource.excludeResourceIds) };
}
