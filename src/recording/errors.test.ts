import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { ERRORS, errorResponse, RecordingApiError } from './errors.ts';

const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');

/** Rows of docs/errors.md whose first cell is a backticked catalogue key. */
function documented(): Map<string, string[]> {
  const rows = new Map<string, string[]>();
  for (const line of doc.split('\n')) {
    const m = /^\|\s*`(\w+)`\s*\|(.*)\|\s*$/.exec(line);
    if (m) rows.set(m[1]!, m[2]!.split('|').map((c) => c.trim()));
  }
  return rows;
}

test('every catalogue entry is documented in docs/errors.md with the same status, code and reason', () => {
  const rows = documented();
  assert.deepEqual([...rows.keys()].sort(), Object.keys(ERRORS).sort());
  for (const [key, spec] of Object.entries(ERRORS)) {
    const cells = rows.get(key)!;
    if (spec.kind === 'gateway') {
      assert.deepEqual(cells.slice(0, 2), [String(spec.http), spec.message], key);
    } else {
      assert.deepEqual(cells.slice(0, 3), [String(spec.http), String(spec.code), spec.reason ?? '*field: rule*'], key);
    }
  }
});

test('error bodies: gateway message only; service code and reason after the echoed identifiers', () => {
  assert.deepEqual(errorResponse(new RecordingApiError('unauthorized', 'x', { sid: 's' })), { status: 401, body: { message: 'Unauthorized' } });
  const r = errorResponse(new RecordingApiError('workerNotFound', undefined, { sid: 's', cname: 'c' }));
  assert.equal(r.status, 404);
  assert.deepEqual(Object.keys(r.body), ['cname', 'sid', 'code', 'reason']);
  assert.deepEqual(errorResponse(new RecordingApiError('invalidParameter', 'uid: is required')).body, { code: 2, reason: 'uid: is required' });
});
