import type { FastifyInstance } from 'fastify';
import type { Clock } from '../clock/index.ts';
import type { Config } from './config.ts';
import type { DatabaseHandle } from '../db/index.ts';
import type { LoginThrottle, OpenApiContribution } from '../http/index.ts';
import type { Logger } from '../log/index.ts';
import type { MetricsRegistry } from '../metrics/index.ts';
import type { RefusalWording } from './framework-errors.ts';
import type { MessageBus, RedisConnection } from '../redis/index.ts';

/** The roles one process can play; `reeltime` alone plays all of them. */
export type Role = 'api' | 'recorder' | 'channel' | 'chat';
export const ALL_ROLES: readonly Role[] = Object.freeze(['api', 'recorder', 'channel', 'chat']);

/** What every module is built from. */
export interface ServerContext {
  readonly config: Config;
  readonly log: Logger;
  readonly database: DatabaseHandle;
  readonly clock: Clock;
  readonly roles: ReadonlySet<Role>;
  /** Open when REDIS_URL is set; undefined in the embedded default. */
  readonly redis?: RedisConnection | undefined;
  /** Messages between processes (Redis pub/sub), or within this one when there is no Redis. */
  readonly bus?: MessageBus | undefined;
  /** This process's metrics: each module registers its own there, and only for the roles it runs. */
  readonly metrics: MetricsRegistry;
  /** Failed customer logins of this process, counted together for every route that takes Basic credentials. */
  readonly logins: LoginThrottle;
}

/** A module contributes routes to the one HTTP server and owns its background work. */
export interface ReeltimeModule {
  readonly name: string;
  /** Adds the module's routes; called once, before listen. */
  register(app: FastifyInstance): Promise<void> | void;
  /** Called after the server listens (background loops, restart recovery). */
  start?(baseUrl: string): Promise<void> | void;
  /** Stops background work and releases resources; must not lose data. */
  close(): Promise<void> | void;
  /** The module's body for requests refused before routing (bad URL, unknown path) under the paths it owns. */
  readonly wordRefusal?: RefusalWording;
  /** The module's routes in /openapi.json, described next to them (src/openapi assembles the document). */
  readonly openapi?: OpenApiContribution;
}
