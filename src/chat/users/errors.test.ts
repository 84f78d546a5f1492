import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { ChatRestError, chatErrors } from './errors.ts';

const DOCS = readFileSync(new URL('../../../docs/chat.md', import.meta.url), 'utf8');

test('every chat REST error of the catalogue is a 4xx/5xx documented in docs/chat.md', () => {
  for (const [name, make] of Object.entries(chatErrors)) {
    const e = (make as (...a: unknown[]) => ChatRestError)('x', 1, 'y');
    assert.ok(e instanceof ChatRestError, name);
    assert.ok(e.status >= 400 && e.status < 600, name);
    if (e.status < 500) assert.ok(DOCS.includes(`\`${e.error}\``), `${name}: ${e.error} missing from docs/chat.md`);
  }
});
