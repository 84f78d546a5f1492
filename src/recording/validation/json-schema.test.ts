import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Ajv } from 'ajv';
import { startRequest, storage } from '../testing/client.ts';
import { editedStart, START_RULE_CASES } from '../testing/start-rule-cases.ts';
import { FORMATS } from './formats.ts';
import { REQUEST_BODY_NAMES, requestBodyJsonSchema, startClientRequest, ValidationError } from './index.ts';

/** A stock JSON Schema validator with reeltime's named formats; reeltime's `x-` keywords are annotations to it. */
function ajv(): Ajv {
  const a = new Ajv({ strict: false });
  for (const [name, f] of Object.entries(FORMATS)) a.addFormat(name, f.test);
  return a;
}

const id = { cname: 'room', uid: '527841' };

test('every request body has a JSON Schema that is plain data and that a stock validator compiles', () => {
  assert.deepEqual([...REQUEST_BODY_NAMES], ['acquire', 'start', 'update', 'updateLayout', 'stop']);
  const a = ajv();
  for (const name of REQUEST_BODY_NAMES) {
    const s = requestBodyJsonSchema(name);
    assert.deepEqual(JSON.parse(JSON.stringify(s)), s, `${name}: plain JSON`);
    assert.equal(s.type, 'object', name);
    assert.deepEqual((s.required as string[]).slice(0, 2), ['cname', 'uid'], name);
    a.compile(s);
  }
  const start = requestBodyJsonSchema('start') as { properties: { clientRequest: { properties: Record<string, { 'x-rules'?: string[] }> } } };
  assert.deepEqual(start.properties.clientRequest.properties.extensionServiceConfig?.['x-rules'], ['oneOfEachService', 'webRecorderIncluded']);
});

test('the JSON Schemas accept the bodies the checkers accept, and refuse structural errors', () => {
  const a = ajv();
  const compiled = new Map(REQUEST_BODY_NAMES.map((n) => [n, a.compile(requestBodyJsonSchema(n))]));
  const valid = (name: (typeof REQUEST_BODY_NAMES)[number], body: unknown) => compiled.get(name)!(body);
  assert.ok(valid('acquire', { ...id, clientRequest: { scene: 1, resourceExpiredHour: 24, region: 'EU' } }));
  assert.ok(!valid('acquire', { cname: 'room', uid: 527841 }), 'uid as a number');
  assert.ok(valid('update', { ...id, clientRequest: { streamSubscribe: { audioUidList: { subscribeAudioUids: ['#allstream#'] } } } }));
  assert.ok(!valid('update', { ...id, clientRequest: { streamSubscribe: { audioUidList: { subscribeAudioUids: ['0'] } } } }));
  assert.ok(valid('updateLayout', { ...id, clientRequest: { mixedVideoLayout: 3, layoutConfig: [{ x_axis: 0, y_axis: 0, width: 1, height: 1 }] } }));
  assert.ok(valid('stop', { ...id, clientRequest: { async_stop: true } }));
  assert.ok(!valid('stop', { ...id }), 'clientRequest is required');

  // `null` for an optional field is absent to the checkers: a documented leniency the schemas do not spell out.
  const lenient = new Set(['null optional is absent']);
  const disagree: string[] = [];
  for (const [name, mode, edit] of START_RULE_CASES.filter(([n]) => !lenient.has(n))) {
    const cr = editedStart(mode, edit);
    let structural = true;
    try {
      startClientRequest(cr, 'clientRequest');
    } catch (e) {
      if (!(e instanceof ValidationError)) throw e;
      structural = false;
    }
    if (structural && !valid('start', { ...id, clientRequest: cr })) disagree.push(name);
  }
  assert.deepEqual(disagree, []);
  for (const mode of ['individual', 'mix', 'web'] as const) assert.ok(valid('start', { ...id, clientRequest: startRequest(mode) }), mode);
  assert.ok(!valid('start', { ...id, clientRequest: { ...startRequest('mix'), recordingConfig: { channelType: 2 } } }));
});

test('storageConfig in the JSON Schema names its fields; the storage module still words the errors', () => {
  const start = requestBodyJsonSchema('start') as {
    properties: { clientRequest: { properties: { storageConfig: { properties: Record<string, unknown>; required: string[] } } } };
  };
  const schema = start.properties.clientRequest.properties.storageConfig;
  assert.deepEqual(Object.keys(schema.properties), [
    'vendor',
    'region',
    'bucket',
    'accessKey',
    'secretKey',
    'stsToken',
    'stsExpiration',
    'fileNamePrefix',
    'extensionParams',
  ]);
  assert.deepEqual(schema.required, ['vendor', 'region', 'bucket', 'accessKey', 'secretKey']);
  const valid = ajv().compile(requestBodyJsonSchema('start'));
  const withStorage = (s: Record<string, unknown>) => ({ ...id, clientRequest: { ...startRequest('mix'), storageConfig: { ...storage(), ...s } } });
  assert.ok(valid(withStorage({ extensionParams: { sse: '', tag: '' } })), 'Go client: sse ""');
  assert.ok(!valid(withStorage({ fileNamePrefix: ['a/b'] })));
  assert.ok(!valid(withStorage({ bucket: '' })));
  assert.throws(
    () => startClientRequest({ ...startRequest('mix'), storageConfig: { ...storage(), bucket: '' } }, 'clientRequest'),
    { message: 'clientRequest.storageConfig.bucket: must be a non-empty string' },
  );
});
