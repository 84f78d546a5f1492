import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { DOMAIN_ERRORS, ERRORS, errorResponse, fromDomainError, RecordingApiError } from './errors.ts';
import * as refusals from './lifecycle/errors.ts';
import { ValidationError } from './validation/index.ts';

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

test('every named refusal maps to one catalogue entry, as docs/errors.md lists them', () => {
  const named = Object.values(refusals).filter(
    (v): v is typeof refusals.RecordingRefusal => typeof v === 'function' && v.prototype instanceof refusals.RecordingRefusal,
  );
  assert.deepEqual(
    named.map((c) => c.name).sort(),
    DOMAIN_ERRORS.map(([c]) => c.name).filter((n) => n !== 'ValidationError').sort(),
  );
  const rows = new Map<string, string>();
  for (const line of doc.split('\n')) {
    const m = /^\|\s*(\w+Error)\s*\|\s*`(\w+)`\s*\|/.exec(line);
    if (m) rows.set(m[1]!, m[2]!);
  }
  assert.deepEqual(rows, new Map(DOMAIN_ERRORS.map(([c, key]) => [c.name, key])));
});

test("domain errors: the refusal's subject is echoed when it has one, else the request's identifiers", () => {
  const request = { cname: 'c', uid: '1', resourceId: 'r' };
  const started = fromDomainError(new refusals.AlreadyStartedError({ ...request, sid: 's' }), request)!;
  assert.deepEqual(errorResponse(started), { status: 201, body: { ...request, sid: 's', code: 7, reason: 'already started' } });
  const invalid = fromDomainError(new ValidationError('clientRequest.token', 'must be a string'), request)!;
  assert.deepEqual(errorResponse(invalid).body, { ...request, code: 2, reason: 'clientRequest.token: must be a string' });
  const mode = fromDomainError(new refusals.RecorderUnavailableError('web'), request)!;
  assert.deepEqual(errorResponse(mode).body, { ...request, code: 2, reason: 'mode: no web recorder is available on this server' });
  assert.equal(fromDomainError(new Error('disk full'), request), undefined);
});
