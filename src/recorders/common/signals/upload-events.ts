/**
 * Storage trouble as recorder events: a file that went to the backup spool is the uploader's `backupSpool`
 * warning, its first retry from there the `reUploading` warning (once per file: a long outage would otherwise send
 * one per attempt), a wrong storage configuration its `storageConfig` error (docs/notify.md). Files stay in the spool
 * meanwhile; the configuration error is reported again only after an upload has succeeded.
 */
import type { StorageEvent } from '../../../storage/index.ts';
import { ERROR_CODE, ERROR_LEVEL, EVENT_MODULE, WARN_CODE } from '../../../recording/index.ts';
import type { RecorderSignals } from '../events.ts';

export function uploadEventReporter(signals: Pick<RecorderSignals, 'warning' | 'error'>): (e: StorageEvent) => void {
  let configErrorReported = false;
  const retried = new Set<string>();
  return (e) => {
    if (e.kind === 'upload-failed' && !retried.has(e.fileName)) {
      retried.add(e.fileName);
      const inSec = Math.ceil(e.retryInMs / 1000);
      signals.warning(EVENT_MODULE.uploader, WARN_CODE.reUploading, `${e.fileName}: re-uploading in ${inSec} s (attempt ${e.attempt} failed: ${e.message})`);
    } else if (e.kind === 'backuped') {
      signals.warning(EVENT_MODULE.uploader, WARN_CODE.backupSpool, `${e.fileName}: ${e.message}`);
    } else if (e.kind === 'storage-config-error' && !configErrorReported) {
      configErrorReported = true;
      signals.error(EVENT_MODULE.uploader, ERROR_LEVEL.major, ERROR_CODE.storageConfig, e.message);
    } else if (e.kind === 'file-uploaded') {
      configErrorReported = false;
    }
  };
}
