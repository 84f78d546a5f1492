// Writes packages/client/src/types.gen.ts from the server's request and response schemas (docs/client.md).
// Usage: node --import tsx scripts/gen-client-types.ts   (src/recording/api/client-types.test.ts fails when it is stale)
import { writeFileSync } from 'node:fs';
import { CLIENT_TYPES_PATH, clientTypesSource } from '../src/recording/api/client-types.ts';

writeFileSync(CLIENT_TYPES_PATH, clientTypesSource());
process.stdout.write(`wrote ${CLIENT_TYPES_PATH}\n`);
