import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recorderUpdate } from '../dispatch/subscription.ts';
import { startRequest } from '../testing/client.ts';
import { checkUpdateMode, updateRequest, validateStartClientRequest, ValidationError, type RecordingMode } from './index.ts';

function reasonOf(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (e) {
    if (e instanceof ValidationError) return e.message;
    throw e;
  }
}

test('recordingConfig.onhold (reeltime extension): boolean, at start and update, individual mode only', () => {
  const start = (mode: RecordingMode, onhold: unknown) => {
    const cr = startRequest(mode === 'web' ? 'individual' : mode);
    const rc = { ...(cr.recordingConfig as Record<string, unknown>), onhold };
    return reasonOf(() => validateStartClientRequest({ ...cr, recordingConfig: rc }, mode, 0));
  };
  assert.equal(start('individual', true), undefined);
  assert.equal(start('individual', 'yes'), 'clientRequest.recordingConfig.onhold: must be true or false');
  assert.equal(start('mix', true), 'clientRequest.recordingConfig.onhold: is only allowed in individual mode, not mix');

  const update = (mode: RecordingMode, onhold: unknown) =>
    reasonOf(() => checkUpdateMode(updateRequest({ cname: 'c', uid: '1', clientRequest: { recordingConfig: { onhold } } }, '').clientRequest, mode, false));
  assert.equal(update('individual', false), undefined);
  assert.equal(update('individual', 1), 'clientRequest.recordingConfig.onhold: must be true or false');
  assert.equal(update('mix', true), 'clientRequest.recordingConfig: is only allowed in individual mode, not mix');
  assert.equal(update('web', true), 'clientRequest.recordingConfig: is only allowed in individual mode, not web');
});

test('the recorder sees onhold in its update only when the request gave it', () => {
  assert.deepEqual(recorderUpdate({ recordingConfig: { onhold: true } }), { onhold: true });
  assert.deepEqual(recorderUpdate({ recordingConfig: { onhold: false } }), { onhold: false });
  assert.deepEqual(recorderUpdate({ recordingConfig: {} }), {});
  assert.deepEqual(recorderUpdate({}), {});
});
