import type { LiveTask, StoppingTask } from '../lifecycle/index.ts';
import { subscriptionRequest } from './subscription.ts';
import type { RecordingTask } from './types.ts';

/** What a recorder needs to run a live task's session: the dispatch boundary's view of the stored task. */
export function recordingTaskOf(task: LiveTask | StoppingTask, resumed: boolean): RecordingTask {
  return {
    appId: task.resource.appId,
    cname: task.resource.cname,
    uid: task.resource.uid,
    sid: task.session.sid,
    resourceId: task.resource.resourceId,
    mode: task.session.mode,
    scene: task.resource.scene,
    clientRequest: task.session.clientRequest,
    subscription: subscriptionRequest(task.session.clientRequest.recordingConfig),
    startedAt: task.session.startedAt,
    resumed,
    previousFiles: task.session.files,
    onhold: task.session.onhold,
    layout: task.session.layout,
  };
}
