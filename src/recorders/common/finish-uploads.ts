/**
 * The last step of every recorder: wait until the session's files are in the bucket (or the backup spool), then
 * say so with `uploaded` or `backuped` and the file list (docs/notify.md, "Recorder events").
 */
import type { RecordedFile, UploadingStatus } from '../../recording/dispatch/index.ts';
import type { UploadSession } from '../../storage/index.ts';
import type { RecorderSignals } from './events.ts';

export async function finishUploads(
  upload: Pick<UploadSession, 'finish'>,
  signals: Pick<RecorderSignals, 'emit'>,
  files: readonly RecordedFile[],
): Promise<UploadingStatus> {
  const { uploadingStatus } = await upload.finish();
  signals.emit(uploadingStatus === 'uploaded' ? 'uploaded' : 'backuped', { status: 0, fileList: files.map((f) => ({ ...f })) });
  return uploadingStatus;
}
