export { openTestDatabase, TEST_DIALECTS, TEST_PG_URL, type TestDatabase } from './db.ts';
export { startTestServer, type TestServer } from './server.ts';
