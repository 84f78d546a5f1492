import type { WriteFence } from '../../../recording/dispatch/index.ts';
import type { UploadSession } from '../../../storage/index.ts';

/**
 * The upload session as a fenced recorder sees it: once the recorder's lease is gone, no file reaches the spool
 * (the file stays in the work dir, where the recorder that took over finds it on a shared volume), and neither
 * the storage settings nor the finish mark of the session (shared with that recorder through the database) are
 * touched. Without a fence (in-process dispatch) the session is returned as it is.
 */
export function fenceUploads(upload: UploadSession, fence: WriteFence | undefined): UploadSession {
  if (!fence) return upload;
  return {
    sid: upload.sid,
    objectKey: (fileName) => upload.objectKey(fileName),
    async enqueue(localPath, key, options) {
      if (!fence.holds()) return { ok: false, reason: 'closed', message: 'this recorder no longer holds the session lease' };
      // Waiting for the database (manifest retry) can outlast the lease: the fence is asked again before each retry.
      return upload.enqueue(localPath, key, { ...options, stillWanted: () => fence.holds() && (options?.stillWanted?.() ?? true) });
    },
    async updateStorage(storage) {
      if (fence.holds()) await upload.updateStorage(storage);
    },
    status: () => upload.status(),
    onEvent: (listener) => upload.onEvent(listener),
    // What the spool still holds is the new holder's to finish.
    finish: async () => (fence.holds() ? upload.finish() : { uploadingStatus: 'backuped', files: [] }),
  };
}
