export { TEST_CUSTOMER_AUTH, TEST_CUSTOMER_SECRET } from './credentials.ts';
export { openTestDatabase, TEST_DIALECTS, TEST_PG_URL, type TestDatabase } from './db.ts';
export { startTestServer, testServerEnv, type TestServer } from './server.ts';
export { REELTIME_ENTRY, startServerProcess, type ServerProcess, type ServerProcessOptions } from './server-process.ts';
export { freePort, freeTcpUdpPort, freeUdpPort } from './ports.ts';
export { startTcpProxy, type TcpProxy } from './tcp-proxy.ts';
export { mapBounded } from './parallel.ts';
export { settle, waitUntil, type WaitOptions } from './wait.ts';
export { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.ts';
