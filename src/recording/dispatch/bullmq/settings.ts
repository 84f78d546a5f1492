import type { ConfigSource } from '../../../config/index.ts';

/** Queue-backed dispatch (REDIS_URL and a PostgreSQL DATABASE_URL); see docs/deployment.md, "Recording dispatch". */
export interface DispatchSettings {
  /** How long `start` waits for a recorder to accept the session before answering 502 (no capacity). */
  readonly acceptTimeoutMs: number;
  /**
   * Lease of a recorder on a session (PostgreSQL epoch row) and BullMQ lock of its job. A recorder that cannot
   * renew stops writing once it runs out; another takes the session within about 1.5 times this.
   */
  readonly leaseMs: number;
  /** Capacity units of one recorder process; a session costs `costs[mode]`. */
  readonly capacity: number;
  readonly costs: { readonly individual: number; readonly mix: number; readonly web: number };
  /** Share of all cores (0–100 %) above which a recorder takes no new session; 100 turns the check off. */
  readonly cpuThresholdPercent: number;
}

export function parseDispatchSettings(src: ConfigSource): DispatchSettings {
  const key = (k: string) => `recording.dispatch.${k}`;
  const env = (k: string) => `REELTIME_RECORDING_DISPATCH_${k}`;
  return {
    acceptTimeoutMs: src.int(key('acceptTimeoutSecond'), env('ACCEPT_TIMEOUT_SECOND'), 15, { min: 1, max: 300 }) * 1000,
    leaseMs: src.int(key('leaseSecond'), env('LEASE_SECOND'), 10, { min: 2, max: 300 }) * 1000,
    capacity: src.int(key('capacity'), env('CAPACITY'), 100, { min: 1 }),
    // Measured (docs/deployment.md, sizing): an individual session ≈ 0.02 core per stream, a mix ≈ 0.1–0.4 core,
    // a web session ≈ 0.5 core; with 100 units per 2-core machine these keep it under about 80 %.
    costs: {
      individual: src.int(key('costIndividual'), env('COST_INDIVIDUAL'), 2, { min: 0 }),
      mix: src.int(key('costMix'), env('COST_MIX'), 15, { min: 0 }),
      web: src.int(key('costWeb'), env('COST_WEB'), 40, { min: 0 }),
    },
    cpuThresholdPercent: src.int(key('cpuThresholdPercent'), env('CPU_THRESHOLD_PERCENT'), 90, { min: 1, max: 100 }),
  };
}
