export { openDatabase, type Database, type DatabaseHandle, type DialectName } from './open.ts';
