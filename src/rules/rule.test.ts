// Recording rules as the API takes them: patterns and refusals naming the field. No server.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { matchesCname, parseRuleInput } from './index.ts';

const storageConfig = { vendor: 1, region: 0, bucket: 'test-bucket', accessKey: 'AKIATESTKEY', secretKey: 'test-secret-key' };

test('cname patterns: * is any run of characters, the rest literal', () => {
  const cases: [string, string, boolean][] = [
    ['class-*', 'class-a', true],
    ['class-*', 'class-', true],
    ['class-*', 'klass-a', false],
    ['*', 'anything at all', true],
    ['a*b*c', 'abc', true],
    ['a*b*c', 'a-b-b-c', true],
    ['a*b*c', 'acb', false],
    ['*-live', 'room-live', true],
    ['*-live', 'room-lively', false],
    ['exact', 'exact', true],
    ['exact', 'exactly', false],
    ['a.b', 'aXb', false],
    ['ab*ba', 'aba', false],
  ];
  for (const [p, c, want] of cases) assert.equal(matchesCname(p, c), want, `${p} ~ ${c}`);
});

test('a rule is checked as start checks its request; each refusal names the field', () => {
  const ok = parseRuleInput({ cname: 'class-*', mode: 'individual', clientRequest: { storageConfig, recordingConfig: { channelType: 0, subscribeUidGroup: 0, maxIdleTime: 5 } } });
  assert.equal(ok.scene, 0);
  assert.equal(ok.uid, undefined);
  assert.equal(parseRuleInput({ cname: 'w', mode: 'web', clientRequest: { storageConfig, extensionServiceConfig: { extensionServices: [{ serviceName: 'web_recorder_service', serviceParam: { url: 'https://example.com', audioProfile: 0, videoWidth: 1280, videoHeight: 720, maxRecordingHour: 1 } }] } } }).scene, 1);
  const refusals: [unknown, RegExp][] = [
    [[], /body must be a JSON object/],
    [{ mode: 'individual' }, /RuleInputError: cname: /],
    [{ cname: 'bad/name', mode: 'individual' }, /RuleInputError: cname: /],
    [{ cname: 'a', mode: 'composite' }, /RuleInputError: mode: one of individual, mix, web/],
    [{ cname: 'a', mode: 'mix', uid: '0' }, /RuleInputError: uid: /],
    [{ cname: 'a', mode: 'mix', uid: 12 }, /RuleInputError: uid: /],
    [{ cname: 'a', mode: 'mix', scene: 1 }, /RuleInputError: mode: /],
    [{ cname: 'a', mode: 'mix', scene: 7 }, /RuleInputError: scene: /],
    [{ cname: 'a', mode: 'mix', extra: 1 }, /RuleInputError: extra: unknown field/],
    [{ cname: 'a', mode: 'mix', clientRequest: {} }, /RuleInputError: clientRequest\.storageConfig/],
    [{ cname: 'a', mode: 'mix', clientRequest: { storageConfig: { ...storageConfig, vendor: 99 } } }, /RuleInputError: clientRequest\.storageConfig\.vendor/],
    [{ cname: 'a', mode: 'mix', clientRequest: { storageConfig, token: 'x' } }, /RuleInputError: clientRequest\.token: leave it out/],
  ];
  for (const [body, want] of refusals) assert.throws(() => parseRuleInput(body), want, JSON.stringify(body));
});
