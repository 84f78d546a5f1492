import type { ChannelModule } from '../channel/index.ts';
import { createAuthenticator, type StartClientRequest } from '../recording/index.ts';
import type { ReeltimeModule, ServerContext } from '../server/module.ts';
import { seal, sealingKey, unseal } from '../storage/index.ts';
import { RuleEngine } from './engine.ts';
import { rulesOpenApi } from './openapi.ts';
import { registerRuleRoutes } from './routes.ts';
import { RuleStore, type RuleRow } from './store.ts';

export type RulesModule = ReeltimeModule & {
  /** The engine's pass over a channel in flight (tests wait on it). */
  readonly engine: RuleEngine;
};

/**
 * Recording rules (docs/recording-rules.md): the API on `api` processes; the engine on `channel` processes, which
 * see their channels' publish events, and it starts recordings through the recording API (this process's when it
 * has the `api` role, the deployment's public URL otherwise).
 */
export function createRulesModule(ctx: ServerContext, deps: { readonly channel: ChannelModule }): RulesModule {
  const log = ctx.log.child({ module: 'rules' });
  const store = new RuleStore(ctx.database.db);
  // The same sealing as storage settings: a database dump alone does not give the storage keys away.
  const key = sealingKey(ctx.config.appCertificate);
  const unsealRule = (rule: RuleRow): StartClientRequest | undefined => {
    const text = unseal(rule.client_request_sealed, key);
    return text === undefined ? undefined : (JSON.parse(text) as StartClientRequest);
  };
  let ownUrl = ctx.config.publicUrl;
  const engine = new RuleEngine({
    store,
    clock: ctx.clock,
    log,
    apiUrl: () => (ctx.roles.has('api') ? ownUrl : ctx.config.publicUrl),
    policy: deps.channel.peerPolicy(),
    customers: ctx.config.recording.customers,
    app: { appId: ctx.config.appId, appCertificate: ctx.config.appCertificate },
    clientRequestOf: unsealRule,
  });
  let off: (() => void) | undefined;
  return {
    name: 'rules',
    openapi: rulesOpenApi(),
    engine,
    async register(app) {
      if (!ctx.roles.has('api')) return;
      const rec = ctx.config.recording;
      await registerRuleRoutes(app, {
        store,
        auth: createAuthenticator(rec.customers, rec.appIds, ctx.logins),
        clock: ctx.clock,
        log,
        seal: (cr) => seal(JSON.stringify(cr), key),
        unseal: unsealRule,
      });
    },
    start(url) {
      ownUrl = url;
      if (!ctx.roles.has('channel')) return;
      off = deps.channel.onEvent((e) => {
        if (e.kind === 'publish') void engine.onPublish(e.appId, e.cname);
      });
    },
    async close() {
      off?.();
      await engine.settle();
    },
  };
}
