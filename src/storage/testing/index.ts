export { S3RVER_KEY, startTestS3Server, type TestS3Server } from './s3-server.ts';
export { AZURITE_ACCOUNT, AZURITE_KEY, startTestAzurite, type TestAzurite } from './azurite.ts';
export { testStorageSettings } from './settings.ts';
