/** A RecordingTask as the dispatch boundary builds it, for tests that run a recorder or a dispatcher without the API. */
import { recorderSettings, type SettingsSource } from '../dispatch/settings/index.ts';
import type { RecordingTask } from '../dispatch/types.ts';

export type TestTaskSource = Omit<SettingsSource, 'scene'> & { readonly scene?: SettingsSource['scene'] };

/** Identifiers a, c, 1, s, r; storage and token from the request; settings through `recorderSettings`. */
export function testRecordingTask(source: TestTaskSource, extra: Partial<RecordingTask> = {}): RecordingTask {
  return {
    appId: 'a',
    cname: 'c',
    uid: '1',
    sid: 's',
    resourceId: 'r',
    storage: source.clientRequest.storageConfig,
    token: source.clientRequest.token,
    settings: recorderSettings({ ...source, scene: source.scene ?? 0 }),
    startedAt: 0,
    resumed: false,
    previousFiles: [],
    ...extra,
  };
}
