// A process's tag tells another process of the same machine, at once, that it has died. In-process: the parent
// stands for a live process, a pid nobody holds for a dead one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pidIsAlive, processInfo, processTag, taggedProcessIsGone } from './index.ts';
import { unusedPid } from './testing.ts';

test('a tagged process is gone once it exits; a running one, this one, another scope and nonsense are not', () => {
  const own = processTag();
  assert.match(own, /^[0-9a-f]{12}\.\d+\.\d+$/, 'Linux gives every process a tag');
  assert.equal(taggedProcessIsGone(own), false, 'this process');
  const scope = own.split('.')[0];

  const parent = processInfo(process.ppid) ?? assert.fail('the parent in /proc');
  assert.equal(taggedProcessIsGone(`${scope}.${parent.pid}.${parent.startTime}`), false, 'running');
  assert.equal(pidIsAlive(parent.pid), true);
  assert.equal(taggedProcessIsGone(`${scope}.${parent.pid}.${parent.startTime + 1}`), true, 'the same pid, another start: that process is gone');

  const dead = unusedPid();
  assert.equal(taggedProcessIsGone(`${scope}.${dead}.12345`), true, 'no such process');
  assert.equal(pidIsAlive(dead), false);
  assert.equal(taggedProcessIsGone(`000000000000.${dead}.12345`), false, 'another machine, container or boot: unknown');
  for (const nonsense of ['', 'x', `${scope}.`, `${scope}.abc.1`, `${scope}.-4.1`]) assert.equal(taggedProcessIsGone(nonsense), false, nonsense);
});
