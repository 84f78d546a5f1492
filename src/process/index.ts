export { childrenOf, isRunning, processInfo, processTable, treeCpuSeconds, type ProcessInfo } from './proc-table.ts';
export { pidIsAlive, processTag, taggedProcessIsGone } from './liveness.ts';
export { runChild, type ChildResult, type RunChildOptions } from './run-child.ts';
export { childCommandLine, spawnChild, type ChildSpawnOptions } from './spawn-child.ts';
export { watchChild, type ChildOutcome, type WatchChildOptions } from './watch-child.ts';
export { stopChild, type StopChildOptions } from './stop-child.ts';
export { Admission } from './admission.ts';
