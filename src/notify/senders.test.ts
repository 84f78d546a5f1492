// Sender marks: when another process may take a claim before its lease ends (docs/notify.md, "When a claim is
// taken before its lease ends").
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { processInfo, processTag } from '../process/index.ts';
import { claimOwnerState, newOwnerId, pruneSenderMarks, SenderMark } from './senders.ts';

/** A fresh directory, removed after the test. */
function scratch(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'reeltime-marks-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * The owner id of a process that is gone, without starting one: the parent's pid with another start time (that pid
 * named an earlier process, as after a reuse).
 */
function deadOwner(): string {
  const started = processInfo(process.ppid)?.startTime ?? assert.fail('the parent in /proc');
  return `0f0e0d0c-0b0a-4908-8706-050403020100@${processTag().split('.')[0]}.${process.ppid}.${started + 1}`;
}

test('a mark says sending, then kept while a record waits; a stop removes it unless it leaves a kept record', (t) => {
  const dir = join(scratch(t), 'senders');
  const owner = newOwnerId();
  assert.match(owner, /^[0-9a-f-]{36}@[0-9a-f]{12}\.\d+\.\d+$/, 'random id and this process tag');
  const mark = new SenderMark(dir, owner);
  const file = join(dir, owner);
  assert.equal(readFileSync(file, 'utf8'), 'sending');
  assert.equal(claimOwnerState(dir, owner), 'alive', 'this process runs');
  mark.set('kept');
  assert.equal(readFileSync(file, 'utf8'), 'kept');
  assert.equal(claimOwnerState(dir, owner), 'unknown');
  mark.close(true);
  assert.equal(readFileSync(file, 'utf8'), 'kept', 'left for whoever reads the journal');
  const other = newOwnerId();
  new SenderMark(dir, other).close(false);
  assert.equal(existsSync(join(dir, other)), false);
});

test("a dead owner's claim may be taken only when its mark says sending, in a directory only this user can write", (t) => {
  const dir = scratch(t);
  const owner = deadOwner();
  assert.equal(claimOwnerState(dir, owner), 'unknown', 'no mark: another machine, a graceful stop');
  writeFileSync(join(dir, owner), 'sending');
  assert.equal(claimOwnerState(dir, owner), 'gone');
  writeFileSync(join(dir, owner), 'kept');
  assert.equal(claimOwnerState(dir, owner), 'unknown', 'it held a 200 it could not record');
  writeFileSync(join(dir, owner), 'sending');
  chmodSync(dir, 0o777);
  assert.equal(claimOwnerState(dir, owner), 'unknown', 'anyone could have written that mark');
  chmodSync(dir, 0o700);
  assert.equal(claimOwnerState(undefined, owner), 'unknown');
  for (const bad of ['', 'x', '../etc/passwd', `${owner}/..`, owner.split('@')[0]!]) assert.equal(claimOwnerState(dir, bad), 'unknown', bad);
});

test("marks of dead owners are pruned after an hour; a live process's mark stays", (t) => {
  const dir = scratch(t);
  const dead = deadOwner();
  writeFileSync(join(dir, dead), 'kept');
  const live = newOwnerId();
  new SenderMark(dir, live);
  pruneSenderMarks(dir);
  assert.equal(existsSync(join(dir, dead)), true, 'not an hour old yet');
  pruneSenderMarks(dir, Date.now() + 2 * 3_600_000);
  assert.equal(existsSync(join(dir, dead)), false);
  assert.equal(existsSync(join(dir, live)), true);
});
