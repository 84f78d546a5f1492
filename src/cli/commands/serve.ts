import { loadConfig, startReeltime, type Config, type Role } from '../../server/index.ts';
import type { CommandRunner } from '../command.ts';

function banner(config: Config, url: string, roles: readonly Role[] | undefined): string {
  const lines = [
    '',
    `reeltime is running at ${url}  (roles: ${(roles ?? ['api', 'recorder', 'channel', 'chat']).join(', ')})`,
    `  data dir        ${config.dataDir}${config.databaseUrl ? '  (database: PostgreSQL)' : '  (database: SQLite)'}`,
    `  console         ${url}/`,
    `  recording API   ${url}/v1/apps/${config.appId}/cloud_recording/acquire`,
    `  channels        ${url}/rtc/v1/apps/${config.appId}/channels/{cname}`,
    `  chat tokens     ${url}/chat/app/token`,
    // Objects only (there is no listing at /bucket/), and only where this process serves the bucket.
    ...(config.storage.serveBucket
      ? [`  local bucket    ${url}/bucket/{bucket}/{key}  (${config.storage.bucketPublic ? 'public' : 'signed links from the sessions API, or the customer credentials'})`]
      : []),
    `  metrics         ${url}/metrics  (${config.metricsToken ? 'bearer token' : 'loopback callers only'})`,
  ];
  if (config.generatedCredentials) {
    // Development only: printing generated credentials is what a --dev server is for. Configured secrets never print.
    lines.push(
      '',
      'development credentials (generated, stored in the data dir):',
      `  app id            ${config.appId}`,
      `  app certificate   ${config.appCertificate}`,
      `  customer id       ${config.customerId}`,
      `  customer secret   ${config.customerSecret}`,
      `  curl -u ${config.customerId}:${config.customerSecret} ${url}/v1/ncs/ip`,
    );
  }
  return lines.join('\n') + '\n\n';
}

async function runServer(roles: readonly Role[] | undefined): Promise<number> {
  const config = loadConfig();
  const server = await startReeltime({ config, ...(roles ? { roles } : {}) });
  process.stdout.write(banner(config, server.url, roles));
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await server.close();
  return 0;
}

export const serve: CommandRunner = {
  run: () => runServer(undefined),
};

export function roleCommand(role: Role): CommandRunner {
  return { run: () => runServer([role]) };
}
