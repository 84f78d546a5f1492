/** Types of process-cpu.mjs, for the benchmarks that import it from TypeScript. */
export declare function cpuMsSoFar(): number;
