/** The test customer's secret: long enough for production's rule (16+ characters, src/config/core.ts). */
export const TEST_CUSTOMER_SECRET = 'test-secret-0123456789';

/** `Authorization` of the test customer (HTTP Basic), as the recording API and the bucket take it. */
export const TEST_CUSTOMER_AUTH = `Basic ${Buffer.from(`test-customer:${TEST_CUSTOMER_SECRET}`).toString('base64')}`;
