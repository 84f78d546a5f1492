import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileTransition, type AttemptOutcome, type FileStep } from './file-transition.ts';

const retry = { retryBaseMs: 1000, retryMaxMs: 30_000 };
const failed = (configError: boolean): AttemptOutcome => ({ kind: 'failed', configError, message: 'boom' });

test('a pending file row moves to uploaded, superseded, lost, or stays pending with a retry', () => {
  const table: ReadonlyArray<readonly [attemptsBefore: number, outcome: AttemptOutcome, step: FileStep]> = [
    [0, { kind: 'uploaded', at: 5000 }, { state: 'uploaded', attempts: 1, patch: { state: 'uploaded', attempts: 1, uploaded_at: 5000, last_error: null } }],
    [3, { kind: 'uploaded', at: 7000 }, { state: 'uploaded', attempts: 4, patch: { state: 'uploaded', attempts: 4, uploaded_at: 7000, last_error: null } }],
    // Superseded and lost rows keep their attempt count: nothing was tried.
    [0, { kind: 'newer-copy' }, { state: 'superseded', patch: { state: 'superseded', last_error: null } }],
    [2, { kind: 'newer-copy' }, { state: 'superseded', patch: { state: 'superseded', last_error: null } }],
    [0, { kind: 'file-missing' }, { state: 'lost', patch: { state: 'lost', last_error: 'spool file missing' } }],
    [
      0,
      failed(false),
      { state: 'pending', attempts: 1, patch: { attempts: 1, last_error: 'boom' }, retryInMs: 1000, firstFailure: true, configError: false, message: 'boom' },
    ],
    [
      1,
      failed(false),
      { state: 'pending', attempts: 2, patch: { attempts: 2, last_error: 'boom' }, retryInMs: 2000, firstFailure: false, configError: false, message: 'boom' },
    ],
    [
      9,
      failed(false),
      { state: 'pending', attempts: 10, patch: { attempts: 10, last_error: 'boom' }, retryInMs: 30_000, firstFailure: false, configError: false, message: 'boom' },
    ],
    // Wrong settings do not heal by themselves: the longest wait at once.
    [
      0,
      failed(true),
      { state: 'pending', attempts: 1, patch: { attempts: 1, last_error: 'boom' }, retryInMs: 30_000, firstFailure: true, configError: true, message: 'boom' },
    ],
  ];
  for (const [attempts, outcome, step] of table) {
    assert.deepEqual(fileTransition({ id: 'f', state: 'pending', attempts }, outcome, retry), step, `${attempts} + ${outcome.kind}`);
  }
});

test('only a pending file row changes state', () => {
  for (const state of ['uploaded', 'superseded', 'lost']) {
    assert.throws(() => fileTransition({ id: 'f1', state, attempts: 1 }, { kind: 'uploaded', at: 1 }, retry), /file f1 is .*only a pending file/);
  }
});
