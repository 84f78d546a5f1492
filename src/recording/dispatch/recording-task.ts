import type { LiveTask, StoppingTask } from '../lifecycle/index.ts';
import { recorderSettings, type RecorderSettings } from './settings/index.ts';
import type { RecordingTask } from './types.ts';

/** The settings of a stored session now: start's request with the hold, layout and push targets updates stored since. */
export function recorderSettingsOf(task: LiveTask | StoppingTask): RecorderSettings {
  const s = task.session;
  return recorderSettings({
    mode: s.mode,
    scene: task.resource.scene,
    clientRequest: s.clientRequest,
    onhold: s.onhold,
    layout: s.layout,
    rtmp: s.rtmp,
  });
}

/** What a recorder needs to run a live task's session: the dispatch boundary's view of the stored task. */
export function recordingTaskOf(task: LiveTask | StoppingTask, resumed: boolean): RecordingTask {
  return {
    appId: task.resource.appId,
    cname: task.resource.cname,
    uid: task.resource.uid,
    sid: task.session.sid,
    resourceId: task.resource.resourceId,
    storage: task.session.clientRequest.storageConfig,
    token: task.session.clientRequest.token,
    settings: recorderSettingsOf(task),
    startedAt: task.session.startedAt,
    resumed,
    previousFiles: task.session.files,
  };
}
