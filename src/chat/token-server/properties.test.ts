import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseProperties } from './properties.ts';

test('properties: separators, comments, continuations, escapes; later keys win', () => {
  const p = parseProperties(
    [
      '# the sample file',
      '! another comment',
      'server.port=8090',
      '  appid : 970CA35de60c44645bbae8a215061b33',
      'appcert 5CFd2fd1755d40ecb72977518be15d3b',
      'expire.second=6000',
      'appkey=org\\#ignored',
      'appkey = reeltime#default',
      'domain=127.0.0.1:\\',
      '    8080',
      'empty=',
      'uni=caf\\u00e9\\tx',
      'key\\ with\\ spaces=v',
      '',
    ].join('\r\n'),
  );
  assert.equal(p.get('server.port'), '8090');
  assert.equal(p.get('appid'), '970CA35de60c44645bbae8a215061b33');
  assert.equal(p.get('appcert'), '5CFd2fd1755d40ecb72977518be15d3b');
  assert.equal(p.get('expire.second'), '6000');
  assert.equal(p.get('appkey'), 'reeltime#default');
  assert.equal(p.get('domain'), '127.0.0.1:8080');
  assert.equal(p.get('empty'), '');
  assert.equal(p.get('uni'), 'café\tx');
  assert.equal(p.get('key with spaces'), 'v');
  assert.equal(p.size, 9);
});

test('properties: never throws on arbitrary text', () => {
  for (let i = 0; i < 2000; i++) {
    const s = Array.from({ length: (i % 40) + 1 }, () => String.fromCharCode(Math.floor(Math.random() * 128))).join('');
    assert.ok(parseProperties(s) instanceof Map);
  }
});
