// A process's tag tells another process of the same machine, at once, that it has died.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import { pidIsAlive, processInfo, processTag, taggedProcessIsGone } from './index.ts';

test('a tagged process is gone once it exits; a running one, this one, another scope and nonsense are not', async () => {
  const own = processTag();
  assert.match(own, /^[0-9a-f]{12}\.\d+\.\d+$/, 'Linux gives every process a tag');
  assert.equal(taggedProcessIsGone(own), false, 'this process');

  const child = spawn('sleep', ['30'], { stdio: 'ignore' });
  const pid = child.pid ?? assert.fail('spawned');
  const info = processInfo(pid) ?? assert.fail('in /proc');
  const scope = own.split('.')[0];
  const tag = `${scope}.${pid}.${info.startTime}`;
  assert.equal(taggedProcessIsGone(tag), false, 'running');
  assert.equal(pidIsAlive(pid), true);
  assert.equal(taggedProcessIsGone(`${scope}.${pid}.${info.startTime + 1}`), true, 'the same pid, another start: that process is gone');

  child.kill('SIGKILL');
  await once(child, 'exit');
  assert.equal(taggedProcessIsGone(tag), true, 'killed');
  assert.equal(pidIsAlive(pid), false);
  assert.equal(taggedProcessIsGone(`000000000000.${pid}.${info.startTime}`), false, 'another machine, container or boot: unknown');
  for (const nonsense of ['', 'x', `${scope}.`, `${scope}.abc.1`, `${scope}.-4.1`]) assert.equal(taggedProcessIsGone(nonsense), false, nonsense);
});
