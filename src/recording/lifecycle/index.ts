export * from './task.ts';
export * from './effects.ts';
export * from './transitions.ts';
export { canonicalJson } from './canonical.ts';
