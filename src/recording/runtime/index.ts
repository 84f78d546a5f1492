// The running side of the control plane (docs/architecture.md, "Effects"): SessionRuntime and its parts.
export { SessionRuntime, type RuntimeDeps } from './runtime.ts';
export type { Applied, Mutate } from './types.ts';
export { applyReports, applyStale, type KeptReport, type ReportContext } from './reports.ts';
export { RecorderSlot, slotAfter, type SlotEvent } from './executor.ts';
