import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { INGRESS_ERRORS } from './errors.ts';

test('docs/ingest.md lists every entry of the ingress error catalogue, and no other', () => {
  const doc = readFileSync(new URL('../../docs/ingest.md', import.meta.url), 'utf8');
  const section = doc.slice(doc.indexOf('### Errors'), doc.indexOf('## RTMP push'));
  const rows = [...section.matchAll(/^\| (\d{3}) \| (\d+) \| (.+) \|$/gm)].map((m) => ({ http: Number(m[1]), code: Number(m[2]), text: m[3]! }));
  const entries = Object.values(INGRESS_ERRORS);
  assert.equal(rows.length, entries.length, 'one row per catalogue entry');
  for (const e of entries) {
    const row = rows.find((r) => r.http === e.http && r.code === e.code);
    assert.ok(row, `docs/ingest.md has a row for ${e.http} / ${e.code}`);
    if (e.reason !== null) assert.ok(row.text.includes(`\`${e.reason}\``), `${e.http} / ${e.code} says "${e.reason}"`);
  }
});
