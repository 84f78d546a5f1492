import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { CLIENT_TYPES_PATH, clientTypesSource } from './client-types.ts';

test("@reeltime/client's types.gen.ts is what the server's schemas give (run scripts/gen-client-types.ts when not)", () => {
  assert.equal(readFileSync(CLIENT_TYPES_PATH, 'utf8'), clientTypesSource());
});
