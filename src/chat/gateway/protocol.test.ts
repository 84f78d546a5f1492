import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_TEXT_LENGTH, parseClientFrame } from './protocol.ts';
import { tokenTimes } from './token-times.ts';

test('protocol: valid frames parse; bad ones name the field', () => {
  assert.deepEqual(parseClientFrame('{"type":"login","user":"a","token":"t"}'), {
    ok: true,
    frame: { type: 'login', user: 'a', token: 't' },
  });
  const cases: [string, RegExp][] = [
    ['nope', /not valid JSON/],
    ['[]', /JSON object/],
    ['{"type":"x"}', /type must be/],
    ['{"type":"login","token":"t"}', /login\.user/],
    ['{"type":"login","user":"a"}', /login\.token/],
    ['{"type":"send","reqId":"1","to":"b"}', /send\.text/],
    ['{"type":"send","reqId":"1","text":"x"}', /send\.to/],
    ['{"type":"send","to":"b","text":"x"}', /send\.reqId/],
    [JSON.stringify({ type: 'send', reqId: '1', to: 'b', text: 'x'.repeat(MAX_TEXT_LENGTH + 1) }), /1 to 5000/],
    ['{"type":"renew","reqId":"1"}', /renew\.token/],
    ['{"type":"ack"}', /ack\.id/],
  ];
  for (const [raw, re] of cases) {
    const p = parseClientFrame(raw);
    assert.equal(p.ok, false, raw);
    if (!p.ok) assert.match(p.reason, re);
  }
});

test('token times: warn at 80 % of the lifetime, end at expiry', () => {
  const issue = 1_000_000;
  assert.deepEqual(tokenTimes(issue, issue + 100, issue * 1000), { willExpireIn: 80_000, expiresIn: 100_000 });
  assert.deepEqual(tokenTimes(issue, issue + 100, issue * 1000 + 90_000), { willExpireIn: -10_000, expiresIn: 10_000 });
  assert.equal(tokenTimes(issue, issue + 100, issue * 1000 + 200_000).expiresIn, 0);
});
