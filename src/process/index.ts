export { childrenOf, isRunning, processInfo, processTable, type ProcessInfo } from './proc-table.ts';
export { childCommandLine, spawnChild, type ChildSpawnOptions } from './spawn-child.ts';
