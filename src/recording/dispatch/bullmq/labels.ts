/**
 * Which recorder may take which session (pure): acquire's `region` and `excludeResourceIds` against the labels a
 * recorder advertises (docs/deployment.md, "Region and excluded resources").
 */
import type { Area } from '../../validation/types.ts';

/** What a recorder process says about itself. */
export interface WorkerLabels {
  /** The recorder's own id (its holder name in lease rows). */
  readonly id: string;
  /** The area the recorder serves (`recording.region` of its process); undefined: any. */
  readonly region: Area | undefined;
}

/** What a session asks of its recorder. */
export interface PlacementNeeds {
  /** acquire's `clientRequest.region` (or the API process's `recording.region`). */
  readonly region: Area | undefined;
  /** Recorders that held the sessions of acquire's `excludeResourceIds`. */
  readonly excludedWorkers: readonly string[];
}

const servesRegion = (w: WorkerLabels, region: Area | undefined) => region === undefined || w.region === undefined || w.region === region;

/**
 * Whether the recorder may take the session: never one of the excluded recorders, and only in the session's
 * region. A recorder without a region serves any (a deployment that does not label regions has only one).
 */
export function fitsWorker(w: WorkerLabels, needs: PlacementNeeds): boolean {
  return !needs.excludedWorkers.includes(w.id) && servesRegion(w, needs.region);
}

/**
 * Why none of the live recorders may take the session, naming the acquire field at fault; undefined when one may,
 * or when no recorder is registered at all (then the accept timeout answers, as for no capacity).
 */
export function noFitReason(workers: readonly WorkerLabels[], needs: PlacementNeeds): string | undefined {
  if (workers.length === 0 || workers.some((w) => fitsWorker(w, needs))) return undefined;
  if (!workers.some((w) => servesRegion(w, needs.region))) {
    const served = [...new Set(workers.map((w) => w.region ?? 'any'))].sort().join(', ');
    return `clientRequest.region (acquire): no recorder serves region ${needs.region}; the recorders serve ${served}`;
  }
  const where = needs.region !== undefined ? ` of region ${needs.region}` : '';
  return `clientRequest.excludeResourceIds (acquire): every recorder${where} runs or ran one of the excluded resources`;
}
