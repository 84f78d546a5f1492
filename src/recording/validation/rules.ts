/**
 * Rules of a whole request that depend on the path mode and the acquire scene (the spec's client-request table
 * and its notes on screenshots, web and postponed transcoding), as named functions run in a fixed order.
 */
import { distinctUids } from './cross-field.ts';
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

/** Which sections of a start request each mode takes, and the one web requires. */
export function sectionsOfMode(cr: StartClientRequest, mode: RecordingMode): void {
  const rc = cr.recordingConfig;
  onlyIn(rc !== undefined, 'recordingConfig', ['individual', 'mix'], mode);
  onlyIn(cr.snapshotConfig !== undefined, 'snapshotConfig', ['individual'], mode);
  onlyIn(cr.extensionServiceConfig !== undefined, 'extensionServiceConfig', ['web'], mode);
  onlyIn(cr.appsCollection !== undefined, 'appsCollection', ['individual'], mode);
  onlyIn(cr.transcodeOptions !== undefined, 'transcodeOptions', ['individual'], mode);
  onlyIn(rc?.streamMode !== undefined, 'recordingConfig.streamMode', ['individual'], mode);
  onlyIn(rc?.audioProfile !== undefined, 'recordingConfig.audioProfile', ['mix'], mode);
  onlyIn(rc?.transcodingConfig !== undefined, 'recordingConfig.transcodingConfig', ['mix'], mode);
  onlyIn(rc?.onhold !== undefined, 'recordingConfig.onhold', ['individual', 'mix'], mode);
  onlyIn(rc?.speakerTimeline !== undefined, 'recordingConfig.speakerTimeline', ['individual', 'mix'], mode);
  onlyIn(rc?.transcription !== undefined, 'recordingConfig.transcription', ['individual', 'mix'], mode);
  if (mode === 'web' && cr.extensionServiceConfig === undefined) fail(`${CR}.extensionServiceConfig`, 'is required in web mode');
}

/** Individual mode needs `subscribeUidGroup`, and the distinct uids of the subscribe lists must fit its class. */
export function uidGroupFits(cr: StartClientRequest, mode: RecordingMode): void {
  if (mode !== 'individual') return;
  const rc = cr.recordingConfig;
  if (rc?.subscribeUidGroup === undefined) fail(`${CR}.recordingConfig.subscribeUidGroup`, 'is required in individual mode');
  const distinct = distinctUids(rc.subscribeAudioUids, rc.subscribeVideoUids);
  const max = UID_GROUP_MAX[rc.subscribeUidGroup];
  if (distinct.size > max) {
    fail(
      `${CR}.recordingConfig.subscribeUidGroup`,
      `class ${rc.subscribeUidGroup} allows at most ${max} UIDs, but the subscription lists name ${distinct.size}`,
    );
  }
}

/** Mix and web make MP4 next to HLS only. */
export function mp4NotAlone(cr: StartClientRequest, mode: RecordingMode): void {
  const av = cr.recordingFileConfig?.avFileType;
  if (av && av.length === 1 && av[0] === 'mp4' && mode !== 'individual') {
    fail(`${CR}.recordingFileConfig.avFileType`, `["mp4"] alone is not allowed in ${mode} mode; use ["hls","mp4"]`);
  }
}

/** Screenshots need video, and video lists whenever audio lists are given. */
export function snapshotNeedsVideo(cr: StartClientRequest): void {
  if (!cr.snapshotConfig) return;
  const rc = cr.recordingConfig;
  if ((rc?.streamTypes ?? 2) === 0) fail(`${CR}.recordingConfig.streamTypes`, 'must be 1 or 2 when snapshotConfig is set');
  if (rc?.subscribeAudioUids !== undefined && rc.subscribeVideoUids === undefined) {
    fail(`${CR}.recordingConfig.subscribeVideoUids`, 'is required with subscribeAudioUids when snapshotConfig is set');
  }
}

/**
 * Scene 2 (postponed transcoding or audio mixing) goes with transcodeOptions and with appsCollection
 * `postpone_transcoding`, and only it. Outside scene 2 appsCollection may still be sent with the spec's default
 * policy, `default` (individual mode only, by sectionsOfMode): a plain recording, as without it.
 */
export function sectionsOfScene(cr: StartClientRequest, scene: Scene): void {
  if (scene === 2 && cr.appsCollection === undefined) fail(`${CR}.appsCollection`, 'is required with scene 2');
  if (scene !== 2 && cr.appsCollection !== undefined && (cr.appsCollection.combinationPolicy ?? 'default') !== 'default') {
    fail(`${CR}.appsCollection.combinationPolicy`, 'must be "default" (or absent) unless the resource was acquired with scene 2');
  }
  if (scene !== 2 && cr.transcodeOptions !== undefined) fail(`${CR}.transcodeOptions`, 'is only allowed with scene 2');
  if (scene === 2 && cr.appsCollection?.combinationPolicy !== 'postpone_transcoding') {
    fail(`${CR}.appsCollection.combinationPolicy`, 'must be "postpone_transcoding" with scene 2');
  }
}

/** A start clientRequest checked against its table, then the mode and scene rules, with mix's defaults filled in. */
export function validateStartClientRequest(raw: unknown, mode: RecordingMode, scene: Scene): StartClientRequest {
  const cr = startClientRequest(raw, CR);
  sectionsOfMode(cr, mode);
  uidGroupFits(cr, mode);
  mp4NotAlone(cr, mode);
  snapshotNeedsVideo(cr);
  sectionsOfScene(cr, scene);
  return mode === 'mix' && cr.recordingConfig === undefined ? { ...cr, recordingConfig: MIX_DEFAULT_RECORDING_CONFIG } : cr;
}

/** Mode rules of update: which parts apply to which mode. */
export function checkUpdateMode(cr: UpdateClientRequest, mode: RecordingMode, rtmpConfigured: boolean): void {
  onlyIn(cr.streamSubscribe !== undefined, 'streamSubscribe', ['individual', 'mix'], mode);
  onlyIn(cr.webRecordingConfig !== undefined, 'webRecordingConfig', ['web'], mode);
  onlyIn(cr.recordingConfig !== undefined, 'recordingConfig', ['individual', 'mix'], mode);
  onlyIn(cr.rtmpPublishConfig !== undefined, 'rtmpPublishConfig', ['web'], mode);
  if (cr.rtmpPublishConfig !== undefined && !rtmpConfigured) {
    fail(`${CR}.rtmpPublishConfig`, 'needs a session started with rtmp_publish_service');
  }
}

/** Storage fields that say where files go; the others (keys, STS token) may be refreshed by update. */
const DESTINATION = ['vendor', 'region', 'bucket', 'fileNamePrefix', 'extensionParams'] as const;

/** Equal JSON values, object key order aside; absent and null are the same. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === undefined || a === null || b === undefined || b === null) return (a ?? null) === (b ?? null);
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  }
  if (typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] != null);
    const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] != null);
    return ka.length === kb.length && ka.every((k) => sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  }
  return a === b;
}

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
