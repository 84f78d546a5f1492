export * from './task.ts';
export * from './effects.ts';
export * from './transitions.ts';
export * from './errors.ts';
export { canonicalJson } from './canonical.ts';
