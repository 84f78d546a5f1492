import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { CHANNEL_ERRORS } from './errors.ts';

const doc = readFileSync(new URL('../../docs/channel.md', import.meta.url), 'utf8');

/**
 * The "Errors" table of docs/channel.md as code → status. A row may name several codes (`a` / `b`) with one
 * status for all or one status each (`428 / 412`).
 */
function documented(): Map<string, number> {
  const section = doc.slice(doc.indexOf('## Errors'), doc.indexOf('\n## ', doc.indexOf('## Errors') + 1));
  const codes = new Map<string, number>();
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    const names = [...(cells[1] ?? '').matchAll(/`(\w+)`/g)].map((m) => m[1]!);
    const statuses = [...(cells[2] ?? '').matchAll(/\b([1-5]\d\d)\b/g)].map((m) => Number(m[1]));
    if (names.length === 0 || statuses.length === 0) continue;
    names.forEach((n, i) => codes.set(n, statuses.length === 1 ? statuses[0]! : statuses[i]!));
  }
  return codes;
}

test('every channel error code is documented in docs/channel.md with its status, and nothing else is', () => {
  const rows = documented();
  assert.deepEqual([...rows.keys()].sort(), Object.keys(CHANNEL_ERRORS).sort());
  for (const [code, status] of Object.entries(CHANNEL_ERRORS)) assert.equal(rows.get(code), status, code);
});
