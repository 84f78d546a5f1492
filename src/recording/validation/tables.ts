/** One schema per table of the spec, built once at load (the API calls them per request). */
import { cnameText, hexColor, httpUrl, MAX_PIXELS, rtmpUrl, subscriptionUid, uidText, uint32Text } from './primitives.ts';
import { allStreamsAlone } from './lists.ts';
import { arr, bool, fail, int, join, num, obj, opt, req, str, type Check } from './schema.ts';
import { validateStorageConfig } from '../../storage/index.ts';
import type * as T from './types.ts';

const listOfUids = arr(subscriptionUid, { maxItems: 32 });

/** A subscribe/unsubscribe list: at most 32 uids, or `["#allstream#"]` for every user. */
const uidList: Check<readonly string[]> = (v, path) => {
  const list = listOfUids(v, path);
  allStreamsAlone(list, path);
  return list;
};

function exclusive(v: object, path: string, a: string, b: string): void {
  const o = v as Record<string, unknown>;
  if (o[a] !== undefined && o[b] !== undefined) fail(join(path, b), `must not be set together with ${a}`);
}

/**
 * storageConfig: the storage module owns the vendor rules (region tables, which options apply to which vendor);
 * its field name is re-rooted under our path and its reason reduced to the rule.
 */
export const storageConfig: Check<T.StorageConfig> = (v, path) => {
  const r = validateStorageConfig(v);
  if (r.ok) return r.value;
  const field = r.field.startsWith('storageConfig') ? `${path}${r.field.slice('storageConfig'.length)}` : join(path, r.field);
  const rule = r.reason.startsWith(`${r.field} `) ? r.reason.slice(r.field.length + 1) : r.reason;
  return fail(field, rule);
};

const unit = num({ min: 0, max: 1 });

export const layoutConfigEntry: Check<T.LayoutConfigEntry> = obj({
  uid: opt(uint32Text, { unset: '' }),
  x_axis: req(unit),
  y_axis: req(unit),
  width: req(unit),
  height: req(unit),
  alpha: opt(unit),
  render_mode: opt(int({ enum: [0, 1] as const })),
});

export const backgroundConfigEntry: Check<T.BackgroundConfigEntry> = obj({
  uid: req(uidText),
  image_url: req(httpUrl),
  render_mode: opt(int({ enum: [0, 1] as const })),
});

const layoutShape = {
  maxResolutionUid: opt(uidText),
  mixedVideoLayout: opt(int({ enum: [0, 1, 2, 3] as const })),
  backgroundColor: opt(hexColor),
  backgroundImage: opt(httpUrl),
  defaultUserBackgroundImage: opt(httpUrl),
  layoutConfig: opt(arr(layoutConfigEntry, { maxItems: 17 })),
  backgroundConfig: opt(arr(backgroundConfigEntry, { maxItems: 32 })),
};

function layoutRules(v: T.LayoutFields, path: string): void {
  const layout = v.mixedVideoLayout ?? 0;
  if (v.layoutConfig !== undefined && layout !== 3) {
    fail(join(path, 'layoutConfig'), 'is only allowed with mixedVideoLayout 3 (custom)');
  }
  if (layout === 3 && v.layoutConfig === undefined) fail(join(path, 'layoutConfig'), 'is required with mixedVideoLayout 3');
  v.layoutConfig?.forEach((e, i) => {
    const p = `${join(path, 'layoutConfig')}[${i}]`;
    if (e.x_axis + e.width > 1 + 1e-6) fail(join(p, 'width'), 'x_axis + width must be at most 1');
    if (e.y_axis + e.height > 1 + 1e-6) fail(join(p, 'height'), 'y_axis + height must be at most 1');
  });
}

export const transcodingConfig: Check<T.TranscodingConfig> = obj<T.TranscodingConfig>(
  {
    width: opt(int({ min: 16, max: 1920 })),
    height: opt(int({ min: 16, max: 1920 })),
    fps: opt(int({ min: 1, max: 60 })),
    bitrate: opt(int({ min: 1, max: 6500 })),
    ...layoutShape,
  },
  (v, path) => {
    const w = v.width ?? 360;
    const h = v.height ?? 640;
    if (w * h > MAX_PIXELS) fail(join(path, v.width !== undefined ? 'width' : 'height'), 'width x height must be at most 1920 x 1080');
    layoutRules(v, path);
  },
);

export const updateLayoutClientRequest: Check<T.UpdateLayoutClientRequest> = obj<T.UpdateLayoutClientRequest>(
  layoutShape,
  layoutRules,
);

/**
 * maxIdleTime: the spec states [5,259200] and also "not above 30 days"; the hosted reference and its clients give
 * [5,2592000] (30 days), so that is the range (docs/recording-api.md, accepted forms).
 */
export const MAX_IDLE_TIME_RANGE = Object.freeze({ min: 5, max: 2592000 });

export const recordingConfig: Check<T.RecordingConfig> = obj<T.RecordingConfig>(
  {
    channelType: req(int({ enum: [0, 1] as const })),
    decryptionMode: opt(int({ enum: [0, 1, 2, 3, 4, 5, 6, 7, 8] })),
    secret: opt(str({ minLength: 1, maxLength: 1024 })),
    salt: opt(str({ pattern: [/^[A-Za-z0-9+/]{43}=$/, 'must be Base64 of 32 bytes'] })),
    maxIdleTime: opt(int(MAX_IDLE_TIME_RANGE)),
    streamTypes: opt(int({ enum: [0, 1, 2] as const })),
    videoStreamType: opt(int({ enum: [0, 1] as const })),
    subscribeAudioUids: opt(uidList),
    unsubscribeAudioUids: opt(uidList, { alias: 'unSubscribeAudioUids' }),
    subscribeVideoUids: opt(uidList),
    unsubscribeVideoUids: opt(uidList, { alias: 'unSubscribeVideoUids' }),
    subscribeUidGroup: opt(int({ enum: [0, 1, 2, 3, 4, 5] as const })),
    streamMode: opt(str({ enum: ['default', 'standard', 'original'] as const })),
    audioProfile: opt(int({ enum: [0, 1, 2] as const })),
    transcodingConfig: opt(transcodingConfig),
  },
  (v, path) => {
    exclusive(v, path, 'subscribeAudioUids', 'unsubscribeAudioUids');
    exclusive(v, path, 'subscribeVideoUids', 'unsubscribeVideoUids');
    const mode = v.decryptionMode ?? 0;
    if (mode !== 0 && v.secret === undefined) fail(join(path, 'secret'), 'is required when decryptionMode is not 0');
    if (mode === 0 && v.secret !== undefined) fail(join(path, 'secret'), 'must only be set when decryptionMode is not 0');
    if ((mode === 7 || mode === 8) && v.salt === undefined) fail(join(path, 'salt'), 'is required when decryptionMode is 7 or 8');
    if (mode !== 7 && mode !== 8 && v.salt !== undefined) {
      fail(join(path, 'salt'), 'must only be set when decryptionMode is 7 or 8');
    }
    if (v.streamMode === 'original' && (v.streamTypes ?? 2) !== 0) {
      fail(join(path, 'streamMode'), '"original" requires streamTypes 0 (audio only)');
    }
  },
);

export const recordingFileConfig: Check<T.RecordingFileConfig> = obj({
  avFileType: opt(arr(str({ enum: ['hls', 'mp4'] as const }), { minItems: 1, maxItems: 2, unique: true })),
});

export const snapshotConfig: Check<T.SnapshotConfig> = obj({
  captureInterval: opt(int({ min: 5, max: 3600 })),
  fileType: req(
    arr(str({ enum: ['jpg'] as const }), { minItems: 1, maxItems: 1 }),
  ),
});

export const webRecorderServiceParam: Check<T.WebRecorderServiceParam> = obj<T.WebRecorderServiceParam>(
  {
    url: req(httpUrl),
    audioProfile: req(int({ enum: [0, 1, 2] as const })),
    videoWidth: req(int({ min: 240, max: 1920 })),
    videoHeight: req(int({ min: 240, max: 1920 })),
    maxRecordingHour: req(int({ min: 1, max: 720 })),
    videoBitrate: opt(int({ min: 50, max: 8000 })),
    videoFps: opt(int({ min: 5, max: 60 })),
    mobile: opt(bool()),
    maxVideoDuration: opt(int({ min: 30, max: 240 })),
    onhold: opt(bool()),
    readyTimeout: opt(int({ min: 0, max: 60 })),
  },
  (v, path) => {
    if (v.videoWidth * v.videoHeight > MAX_PIXELS) {
      fail(join(path, 'videoHeight'), 'videoWidth x videoHeight must be at most 1920 x 1080');
    }
  },
);

const rtmpOutput: Check<T.RtmpOutput> = obj({ rtmpUrl: req(rtmpUrl) });

export const rtmpPublishServiceParam: Check<T.RtmpPublishServiceParam> = obj({
  outputs: req(arr(rtmpOutput, { minItems: 1, maxItems: 1 })),
});

const serviceHead = obj<{ serviceName: string; errorHandlePolicy?: string }>({
  serviceName: req(str({ enum: ['web_recorder_service', 'rtmp_publish_service'] as const })),
  errorHandlePolicy: opt(str(), { unset: '' }),
});

export const extensionService: Check<T.ExtensionService> = (v, path) => {
  const head = serviceHead(v, path);
  const raw = v as Record<string, unknown>;
  const pp = join(path, 'serviceParam');
  if (raw.serviceParam === undefined || raw.serviceParam === null) fail(pp, 'is required');
  if (head.serviceName === 'web_recorder_service') {
    if (head.errorHandlePolicy !== undefined && head.errorHandlePolicy !== 'error_abort') {
      fail(join(path, 'errorHandlePolicy'), 'must be "error_abort" for web_recorder_service');
    }
    return {
      serviceName: 'web_recorder_service',
      ...(head.errorHandlePolicy ? { errorHandlePolicy: 'error_abort' as const } : {}),
      serviceParam: webRecorderServiceParam(raw.serviceParam, pp),
    };
  }
  if (head.errorHandlePolicy !== undefined && head.errorHandlePolicy !== 'error_ignore') {
    fail(join(path, 'errorHandlePolicy'), 'must be "error_ignore" for rtmp_publish_service');
  }
  return {
    serviceName: 'rtmp_publish_service',
    ...(head.errorHandlePolicy ? { errorHandlePolicy: 'error_ignore' as const } : {}),
    serviceParam: rtmpPublishServiceParam(raw.serviceParam, pp),
  };
};

export const extensionServiceConfig: Check<T.ExtensionServiceConfig> = obj<T.ExtensionServiceConfig>(
  {
    errorHandlePolicy: opt(str({ enum: ['error_abort'] as const })),
    extensionServices: req(arr(extensionService, { minItems: 1, maxItems: 2 })),
  },
  (v, path) => {
    const names = v.extensionServices.map((s) => s.serviceName);
    names.forEach((n, i) => {
      if (names.indexOf(n) !== i) fail(`${join(path, 'extensionServices')}[${i}].serviceName`, 'must not repeat a service');
    });
    if (!names.includes('web_recorder_service')) {
      fail(join(path, 'extensionServices'), 'must include web_recorder_service');
    }
  },
);

export const appsCollection: Check<T.AppsCollection> = obj({
  combinationPolicy: opt(str({ enum: ['postpone_transcoding', 'default'] as const })),
});

export const transcodeOptions: Check<T.TranscodeOptions> = obj<T.TranscodeOptions>(
  {
    transConfig: req(obj({ transMode: req(str({ enum: ['postponeTranscoding', 'audioMix'] as const })) })),
    container: opt(obj({ format: opt(str({ enum: ['mp4', 'mp3', 'm4a', 'aac'] as const }), { unset: '' }) })),
    audio: opt(
      obj({
        sampleRate: opt(str({ enum: ['48000', '32000', '16000'] as const }), { unset: '' }),
        bitrate: opt(str({ pattern: [/^[1-9][0-9]{3,6}$/, 'must be integer text (bits per second)'] }), { unset: '' }),
        channels: opt(str({ enum: ['1', '2'] as const }), { unset: '' }),
      }),
    ),
  },
  (v, path) => {
    const mode = v.transConfig.transMode;
    const fmt = v.container?.format;
    if (mode === 'postponeTranscoding' && fmt !== undefined && fmt !== 'mp4') {
      fail(join(path, 'container.format'), 'must be "mp4" with transMode postponeTranscoding');
    }
    if (mode === 'audioMix' && fmt === 'mp4') fail(join(path, 'container.format'), 'must be mp3, m4a or aac with transMode audioMix');
    if (mode !== 'audioMix' && v.audio !== undefined) fail(join(path, 'audio'), 'is only allowed with transMode audioMix');
  },
);

/** Structure of a start clientRequest; mode-dependent rules are in rules.ts. */
export const startClientRequest: Check<T.StartClientRequest> = obj({
  token: opt(str({ minLength: 1, maxLength: 2048 })),
  storageConfig: req(storageConfig),
  recordingConfig: opt(recordingConfig),
  recordingFileConfig: opt(recordingFileConfig),
  snapshotConfig: opt(snapshotConfig),
  extensionServiceConfig: opt(extensionServiceConfig),
  appsCollection: opt(appsCollection),
  transcodeOptions: opt(transcodeOptions),
});

export const acquireClientRequest: Check<T.AcquireClientRequest> = obj<T.AcquireClientRequest>({
  scene: opt(int({ enum: [0, 1, 2] as const })),
  resourceExpiredHour: opt(int({ min: 1, max: 720 }), { unset: 0 }),
  startParameter: opt((v: unknown) => v),
  excludeResourceIds: opt(arr(str({ minLength: 1, maxLength: 1024 }), { maxItems: 32 })),
  region: opt(str({ enum: ['CN', 'AP', 'EU', 'NA'] as const })),
});

const identity = { cname: req(cnameText), uid: req(uidText) };

export const acquireRequest: Check<T.AcquireRequest> = obj({ ...identity, clientRequest: opt(acquireClientRequest) });

/** Start body with the clientRequest left raw: it is checked against the mode afterwards (rules.ts). */
export const startEnvelope: Check<{ cname: string; uid: string; clientRequest: unknown }> = obj({
  ...identity,
  clientRequest: req((v: unknown) => v),
});

const audioUidList = obj<NonNullable<NonNullable<T.UpdateClientRequest['streamSubscribe']>['audioUidList']>>(
  { subscribeAudioUids: opt(uidList), unsubscribeAudioUids: opt(uidList, { alias: 'unSubscribeAudioUids' }) },
  (v, path) => exclusive(v, path, 'subscribeAudioUids', 'unsubscribeAudioUids'),
);
const videoUidList = obj<NonNullable<NonNullable<T.UpdateClientRequest['streamSubscribe']>['videoUidList']>>(
  { subscribeVideoUids: opt(uidList), unsubscribeVideoUids: opt(uidList, { alias: 'unSubscribeVideoUids' }) },
  (v, path) => exclusive(v, path, 'subscribeVideoUids', 'unsubscribeVideoUids'),
);

export const updateClientRequest: Check<T.UpdateClientRequest> = obj({
  streamSubscribe: opt(obj({ audioUidList: opt(audioUidList), videoUidList: opt(videoUidList) })),
  webRecordingConfig: opt(obj({ onhold: opt(bool()) })),
  rtmpPublishConfig: opt(obj({ outputs: opt(arr(rtmpOutput, { maxItems: 1 })) })),
  storageConfig: opt(storageConfig),
});

export const updateRequest: Check<T.UpdateRequest> = obj({ ...identity, clientRequest: req(updateClientRequest) });

export const updateLayoutRequest: Check<T.UpdateLayoutRequest> = obj({
  ...identity,
  clientRequest: req(updateLayoutClientRequest),
});

export const stopRequest: Check<T.StopRequest> = obj({
  ...identity,
  clientRequest: req(obj({ async_stop: opt(bool()) })),
});
