import type { CoreConfig } from '../config/index.ts';

/** An app channels can live in. No certificate means tokens are not checked (Agora's "testing mode"). */
export interface ChannelApp {
  readonly appId: string;
  readonly appCertificate: string | undefined;
}

/** Finds an app by id (case-insensitive, like Agora app ids); undefined for unknown apps. */
export type AppLookup = (appId: string) => ChannelApp | undefined;

/** For now the only app is the primary one of the configuration. */
export function configuredApps(core: Pick<CoreConfig, 'appId' | 'appCertificate'>): AppLookup {
  const app: ChannelApp = Object.freeze({ appId: core.appId, appCertificate: core.appCertificate || undefined });
  return (appId) => (appId.toLowerCase() === app.appId.toLowerCase() ? app : undefined);
}
