/** Rules of a start clientRequest that depend on the path mode and the acquire scene (spec client-request notes). */
import { distinctUids } from './lists.ts';
import { fail } from './schema.ts';
import { startClientRequest } from './tables.ts';
import type { RecordingConfig, RecordingMode, Scene, StartClientRequest, StorageConfig, UpdateClientRequest } from './types.ts';

const CR = 'clientRequest';
const UID_GROUP_MAX = [2, 7, 12, 17, 32, 49] as const;

/** recordingConfig of a mix start that omits it (the spec marks it optional): the spec's defaults, everyone subscribed. */
export const MIX_DEFAULT_RECORDING_CONFIG: RecordingConfig = Object.freeze({ channelType: 0, streamTypes: 2, maxIdleTime: 30 });

function onlyIn(present: boolean, field: string, allowed: readonly RecordingMode[], mode: RecordingMode): void {
  if (present && !allowed.includes(mode)) {
    fail(`${CR}.${field}`, `is only allowed in ${allowed.join(' and ')} mode${allowed.length > 1 ? 's' : ''}, not ${mode}`);
  }
}

/** Scene of the resource versus the mode of the start path. */
export function checkSceneMode(scene: Scene, mode: RecordingMode): void {
  if (scene === 1 && mode !== 'web') fail('mode', 'must be web for a resource acquired with scene 1');
  if (scene !== 1 && mode === 'web') fail('mode', 'web requires a resource acquired with clientRequest.scene 1');
  if (scene === 2 && mode !== 'individual') fail('mode', 'must be individual for a resource acquired with scene 2');
}

export function validateStartClientRequest(raw: unknown, mode: RecordingMode, scene: Scene): StartClientRequest {
  const cr = startClientRequest(raw, CR);
  const rc = cr.recordingConfig;

  onlyIn(rc !== undefined, 'recordingConfig', ['individual', 'mix'], mode);
  onlyIn(cr.snapshotConfig !== undefined, 'snapshotConfig', ['individual'], mode);
  onlyIn(cr.extensionServiceConfig !== undefined, 'extensionServiceConfig', ['web'], mode);
  onlyIn(cr.appsCollection !== undefined, 'appsCollection', ['individual'], mode);
  onlyIn(cr.transcodeOptions !== undefined, 'transcodeOptions', ['individual'], mode);
  onlyIn(rc?.streamMode !== undefined, 'recordingConfig.streamMode', ['individual'], mode);
  onlyIn(rc?.audioProfile !== undefined, 'recordingConfig.audioProfile', ['mix'], mode);
  onlyIn(rc?.transcodingConfig !== undefined, 'recordingConfig.transcodingConfig', ['mix'], mode);

  if (mode === 'web' && cr.extensionServiceConfig === undefined) {
    fail(`${CR}.extensionServiceConfig`, 'is required in web mode');
  }

  if (mode === 'individual' && rc?.subscribeUidGroup === undefined) {
    fail(`${CR}.recordingConfig.subscribeUidGroup`, 'is required in individual mode');
  }
  if (mode === 'individual' && rc && rc.subscribeUidGroup !== undefined) {
    const distinct = distinctUids(rc.subscribeAudioUids, rc.subscribeVideoUids);
    const max = UID_GROUP_MAX[rc.subscribeUidGroup];
    if (distinct.size > max) {
      fail(
        `${CR}.recordingConfig.subscribeUidGroup`,
        `class ${rc.subscribeUidGroup} allows at most ${max} UIDs, but the subscription lists name ${distinct.size}`,
      );
    }
  }

  const av = cr.recordingFileConfig?.avFileType;
  if (av && av.length === 1 && av[0] === 'mp4' && mode !== 'individual') {
    fail(`${CR}.recordingFileConfig.avFileType`, `["mp4"] alone is not allowed in ${mode} mode; use ["hls","mp4"]`);
  }
  if (cr.snapshotConfig) {
    const st = rc?.streamTypes ?? 2;
    if (st === 0) fail(`${CR}.recordingConfig.streamTypes`, 'must be 1 or 2 when snapshotConfig is set');
    if (rc?.subscribeAudioUids !== undefined && rc.subscribeVideoUids === undefined) {
      fail(`${CR}.recordingConfig.subscribeVideoUids`, 'is required with subscribeAudioUids when snapshotConfig is set');
    }
  }

  if (scene === 2 && cr.appsCollection === undefined) fail(`${CR}.appsCollection`, 'is required with scene 2');
  if (scene !== 2 && cr.appsCollection !== undefined) fail(`${CR}.appsCollection`, 'is only allowed with scene 2');
  if (scene !== 2 && cr.transcodeOptions !== undefined) fail(`${CR}.transcodeOptions`, 'is only allowed with scene 2');
  if (scene === 2 && cr.appsCollection?.combinationPolicy !== 'postpone_transcoding') {
    fail(`${CR}.appsCollection.combinationPolicy`, 'must be "postpone_transcoding" with scene 2');
  }
  return mode === 'mix' && rc === undefined ? { ...cr, recordingConfig: MIX_DEFAULT_RECORDING_CONFIG } : cr;
}

/** Mode rules of update: which parts apply to which mode. */
export function checkUpdateMode(cr: UpdateClientRequest, mode: RecordingMode, rtmpConfigured: boolean): void {
  onlyIn(cr.streamSubscribe !== undefined, 'streamSubscribe', ['individual', 'mix'], mode);
  onlyIn(cr.webRecordingConfig !== undefined, 'webRecordingConfig', ['web'], mode);
  onlyIn(cr.rtmpPublishConfig !== undefined, 'rtmpPublishConfig', ['web'], mode);
  if (cr.rtmpPublishConfig !== undefined && !rtmpConfigured) {
    fail(`${CR}.rtmpPublishConfig`, 'needs a session started with rtmp_publish_service');
  }
}

/** Storage fields that say where files go; the others (keys, STS token) may be refreshed by update. */
const DESTINATION = ['vendor', 'region', 'bucket', 'fileNamePrefix', 'extensionParams'] as const;

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * storageConfig sent with update: the files of a session go to one place, so only credentials may change. The
 * reason names the field and never quotes a value (storage settings are secrets).
 */
export function checkStorageUnchanged(next: StorageConfig, started: StorageConfig, path: string): void {
  for (const key of DESTINATION) {
    if (!sameJson(next[key], started[key])) {
      fail(`${path}.${key}`, 'must equal the value given at start; only accessKey, secretKey, stsToken and stsExpiration may change');
    }
  }
}
