/**
 * One TypeBox schema per table of the spec: the only declaration of each request shape. The TypeScript types
 * (`Out<typeof …Schema>`), the JSON Schemas (json-schema.ts) and the checkers below all derive from these.
 * Mode and scene rules of a whole request are in rules.ts; rules across fields of one object in cross-field.ts.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import {
  allStreamsAlone,
  canvasSize,
  customLayout,
  decryptionKeys,
  exclusiveAudioLists,
  exclusiveVideoLists,
  oneOfEachService,
  originalStreamMode,
  speakerTimelineHearsAudio,
  pageSize,
  transcodeOptionsByMode,
  webRecorderIncluded,
  windowsInsideCanvas,
} from './cross-field.ts';
import { Cname, HexColor, HttpUrl, oneOf, RtmpUrl, SubscriptionUid, Uid, Uint32Text } from './primitives.ts';
import { annotate, checkedBy, checkerFor, fail, join, withRules, type Check, type Out } from './schema.ts';
import {
  BUCKET_NAME,
  MAX_BUCKET_LENGTH,
  MAX_PREFIX_LENGTH,
  PREFIX_ELEMENT,
  SSE_MODES,
  STORAGE_VENDORS,
  validateStorageConfig,
  type StorageConfig,
} from '../../storage/index.ts';

/** A subscribe/unsubscribe list: at most 32 uids, or `["#allstream#"]` for every user. */
const UidList = withRules(Type.Array(SubscriptionUid, { maxItems: 32 }), allStreamsAlone);

/** The blacklists are also read under the spelling of the subscription guide and older references. */
const DenyList = (alias: string) => Type.Optional(annotate(UidList, { 'x-alias': alias }));

/** Go's clients send `""` for strings left unset (fields without `omitempty`): read as absent. */
const unsetEmpty = <S extends TSchema>(s: S) => Type.Optional(annotate(s, { 'x-unset': '' }));

/**
 * storageConfig: the storage module owns the vendor rules (region tables, which options apply to which vendor);
 * its field name is re-rooted under our path and its reason reduced to the rule.
 */
const checkStorage: Check<StorageConfig> = (v, path) => {
  const r = validateStorageConfig(v);
  if (r.ok) return r.value;
  const field = r.field.startsWith('storageConfig') ? `${path}${r.field.slice('storageConfig'.length)}` : join(path, r.field);
  const rule = r.reason.startsWith(`${r.field} `) ? r.reason.slice(r.field.length + 1) : r.reason;
  return fail(field, rule);
};

const NonEmpty = Type.String({ minLength: 1 });

/**
 * The fields of storageConfig as data, for the JSON Schema and its readers; the storage module's check (above)
 * decides, so its messages stay the ones docs/storage.md lists. Vendor rules (regions per vendor, which vendor
 * takes `sse`, `tag`, `stsToken`, `endpoint`) are in docs/storage.md.
 */
export const StorageConfigSchema = checkedBy(
  Type.Unsafe<StorageConfig>(
    Type.Object(
      {
        vendor: Type.Integer({ enum: [...STORAGE_VENDORS], description: 'Storage vendor number (docs/storage.md).' }),
        region: Type.Integer({ minimum: 0, description: "Region number in the vendor's own table (docs/storage.md)." }),
        bucket: Type.String({ minLength: 1, maxLength: MAX_BUCKET_LENGTH, pattern: BUCKET_NAME.source }),
        accessKey: annotate(NonEmpty, { writeOnly: true }),
        secretKey: annotate(NonEmpty, { writeOnly: true }),
        stsToken: Type.Optional(annotate(NonEmpty, { writeOnly: true, description: 'Vendors 1, 2 and 3.' })),
        stsExpiration: Type.Optional(Type.Integer({ minimum: 0, description: 'UNIX seconds; needs stsToken.' })),
        fileNamePrefix: Type.Optional(
          Type.Array(Type.String({ pattern: PREFIX_ELEMENT.source }), {
            description: `Joined with "/", at most ${MAX_PREFIX_LENGTH} characters.`,
          }),
        ),
        extensionParams: Type.Optional(
          Type.Object({
            sse: Type.Optional(
              Type.String({ enum: [...SSE_MODES, ''], description: 'Vendor 1; "" is "not set" (Go client).' }),
            ),
            tag: Type.Optional(Type.String({ description: 'Vendors 1 and 2; "" is "not set".' })),
            endpoint: Type.Optional(Type.String({ minLength: 1, description: 'Vendor 11 (required there): host or http(s) URL.' })),
          }),
        ),
      },
      { description: 'Third-party storage; checked by the storage module, see docs/storage.md.' },
    ),
  ),
  checkStorage,
);

const Unit = Type.Number({ minimum: 0, maximum: 1 });
const RenderMode = oneOf([0, 1] as const);

export const LayoutConfigEntrySchema = Type.Object({
  uid: unsetEmpty(Uint32Text),
  x_axis: Unit,
  y_axis: Unit,
  width: Unit,
  height: Unit,
  alpha: Type.Optional(Unit),
  render_mode: Type.Optional(RenderMode),
});

export const BackgroundConfigEntrySchema = Type.Object({
  uid: Uid,
  image_url: HttpUrl,
  render_mode: Type.Optional(RenderMode),
});

/** The layout part shared by transcodingConfig and updateLayout. */
const layoutFields = {
  maxResolutionUid: Type.Optional(Uid),
  // 100: reeltime's active-speaker layout (docs/recording-mix.md); 0–3 are the hosted service's.
  mixedVideoLayout: Type.Optional(oneOf([0, 1, 2, 3, 100] as const)),
  backgroundColor: Type.Optional(HexColor),
  backgroundImage: Type.Optional(HttpUrl),
  defaultUserBackgroundImage: Type.Optional(HttpUrl),
  layoutConfig: Type.Optional(Type.Array(LayoutConfigEntrySchema, { maxItems: 17 })),
  backgroundConfig: Type.Optional(Type.Array(BackgroundConfigEntrySchema, { maxItems: 32 })),
};

export const LayoutFieldsSchema = withRules(Type.Object(layoutFields), customLayout, windowsInsideCanvas);

export const TranscodingConfigSchema = withRules(
  Type.Object({
    width: Type.Optional(Type.Integer({ minimum: 16, maximum: 1920 })),
    height: Type.Optional(Type.Integer({ minimum: 16, maximum: 1920 })),
    fps: Type.Optional(Type.Integer({ minimum: 1, maximum: 60 })),
    bitrate: Type.Optional(Type.Integer({ minimum: 1, maximum: 6500 })),
    ...layoutFields,
  }),
  canvasSize,
  customLayout,
  windowsInsideCanvas,
);

export const UpdateLayoutClientRequestSchema = LayoutFieldsSchema;

/**
 * maxIdleTime: the spec states [5,259200] and also "not above 30 days"; the hosted reference and its clients give
 * [5,2592000] (30 days), so that is the range (docs/recording-api.md, accepted forms).
 */
export const MAX_IDLE_TIME_RANGE = Object.freeze({ minimum: 5, maximum: 2592000 });

export const RecordingConfigSchema = withRules(
  Type.Object({
    channelType: oneOf([0, 1] as const),
    decryptionMode: Type.Optional(oneOf([0, 1, 2, 3, 4, 5, 6, 7, 8] as const)),
    secret: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
    salt: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9+/]{43}=$', 'x-rule': 'must be Base64 of 32 bytes' })),
    maxIdleTime: Type.Optional(Type.Integer(MAX_IDLE_TIME_RANGE)),
    streamTypes: Type.Optional(oneOf([0, 1, 2] as const)),
    videoStreamType: Type.Optional(oneOf([0, 1] as const)),
    subscribeAudioUids: Type.Optional(UidList),
    unsubscribeAudioUids: DenyList('unSubscribeAudioUids'),
    subscribeVideoUids: Type.Optional(UidList),
    unsubscribeVideoUids: DenyList('unSubscribeVideoUids'),
    subscribeUidGroup: Type.Optional(oneOf([0, 1, 2, 3, 4, 5] as const)),
    streamMode: Type.Optional(oneOf(['default', 'standard', 'original'] as const)),
    audioProfile: Type.Optional(oneOf([0, 1, 2] as const)),
    transcodingConfig: Type.Optional(TranscodingConfigSchema),
    /** reeltime's extension (individual and mix modes): start paused; docs/recording-api.md, "Pause and resume". */
    onhold: Type.Optional(Type.Boolean()),
    /** reeltime's extension (individual and mix modes): who spoke when; docs/tasks/speaker-timeline.md. */
    speakerTimeline: Type.Optional(Type.Boolean()),
    /** reeltime's extension, with speakerTimeline: each interval's audio POSTed to this speech-to-text service. */
    transcription: Type.Optional(Type.Object({ url: HttpUrl, secret: Type.String({ minLength: 1, maxLength: 1024 }) })),
  }),
  exclusiveAudioLists,
  exclusiveVideoLists,
  decryptionKeys,
  originalStreamMode,
  speakerTimelineHearsAudio,
);

export const RecordingFileConfigSchema = Type.Object({
  avFileType: Type.Optional(Type.Array(oneOf(['hls', 'mp4'] as const), { minItems: 1, maxItems: 2, uniqueItems: true })),
});

export const SnapshotConfigSchema = Type.Object({
  captureInterval: Type.Optional(Type.Integer({ minimum: 5, maximum: 3600 })),
  fileType: Type.Array(oneOf(['jpg'] as const), { minItems: 1, maxItems: 1 }),
});

export const WebRecorderServiceParamSchema = withRules(
  Type.Object({
    url: HttpUrl,
    audioProfile: oneOf([0, 1, 2] as const),
    videoWidth: Type.Integer({ minimum: 240, maximum: 1920 }),
    videoHeight: Type.Integer({ minimum: 240, maximum: 1920 }),
    maxRecordingHour: Type.Integer({ minimum: 1, maximum: 720 }),
    videoBitrate: Type.Optional(Type.Integer({ minimum: 50, maximum: 8000 })),
    videoFps: Type.Optional(Type.Integer({ minimum: 5, maximum: 60 })),
    mobile: Type.Optional(Type.Boolean()),
    maxVideoDuration: Type.Optional(Type.Integer({ minimum: 30, maximum: 240 })),
    onhold: Type.Optional(Type.Boolean()),
    readyTimeout: Type.Optional(Type.Integer({ minimum: 0, maximum: 60 })),
  }),
  pageSize,
);

export const RtmpOutputSchema = Type.Object({ rtmpUrl: RtmpUrl });

export const RtmpPublishServiceParamSchema = Type.Object({ outputs: Type.Array(RtmpOutputSchema, { minItems: 1, maxItems: 1 }) });

/** The only policy each service takes; `""` (Go's unset string) means the default. */
const policy = <const P extends string>(value: P, service: string) =>
  unsetEmpty(oneOf([value] as const, { 'x-rule': `must be ${JSON.stringify(value)} for ${service}` }));

export const ExtensionServiceSchema = Type.Union(
  [
    Type.Object({
      serviceName: Type.Literal('web_recorder_service'),
      errorHandlePolicy: policy('error_abort', 'web_recorder_service'),
      serviceParam: WebRecorderServiceParamSchema,
    }),
    Type.Object({
      serviceName: Type.Literal('rtmp_publish_service'),
      errorHandlePolicy: policy('error_ignore', 'rtmp_publish_service'),
      serviceParam: RtmpPublishServiceParamSchema,
    }),
  ],
  { discriminator: { propertyName: 'serviceName' } },
);

export const ExtensionServiceConfigSchema = withRules(
  Type.Object({
    errorHandlePolicy: Type.Optional(oneOf(['error_abort'] as const)),
    extensionServices: Type.Array(ExtensionServiceSchema, { minItems: 1, maxItems: 2 }),
  }),
  oneOfEachService,
  webRecorderIncluded,
);

export const AppsCollectionSchema = Type.Object({
  combinationPolicy: Type.Optional(oneOf(['postpone_transcoding', 'default'] as const)),
});

export const TranscodeOptionsSchema = withRules(
  Type.Object({
    transConfig: Type.Object({ transMode: oneOf(['postponeTranscoding', 'audioMix'] as const) }),
    container: Type.Optional(Type.Object({ format: unsetEmpty(oneOf(['mp4', 'mp3', 'm4a', 'aac'] as const)) })),
    audio: Type.Optional(
      Type.Object({
        sampleRate: unsetEmpty(oneOf(['48000', '32000', '16000'] as const)),
        bitrate: unsetEmpty(Type.String({ pattern: '^[1-9][0-9]{3,6}$', 'x-rule': 'must be integer text (bits per second)' })),
        channels: unsetEmpty(oneOf(['1', '2'] as const)),
      }),
    ),
  }),
  transcodeOptionsByMode,
);

/** `clientRequest` of start (and `startParameter` of acquire); mode-dependent rules are in rules.ts. */
export const StartClientRequestSchema = Type.Object({
  token: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
  storageConfig: StorageConfigSchema,
  recordingConfig: Type.Optional(RecordingConfigSchema),
  recordingFileConfig: Type.Optional(RecordingFileConfigSchema),
  snapshotConfig: Type.Optional(SnapshotConfigSchema),
  extensionServiceConfig: Type.Optional(ExtensionServiceConfigSchema),
  appsCollection: Type.Optional(AppsCollectionSchema),
  transcodeOptions: Type.Optional(TranscodeOptionsSchema),
});

export const AREAS = ['CN', 'AP', 'EU', 'NA'] as const;

export const AcquireClientRequestSchema = Type.Object({
  scene: Type.Optional(oneOf([0, 1, 2] as const)),
  /** Go clients send 0 when the caller left it unset: the default then applies. */
  resourceExpiredHour: Type.Optional(Type.Integer({ minimum: 1, maximum: 720, 'x-unset': 0 })),
  /** Kept raw: an invalid startParameter must not fail acquire (it fails the later start instead). */
  startParameter: Type.Optional(Type.Unknown({ description: 'The clientRequest of the later start, compared with it.' })),
  excludeResourceIds: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 1024 }), { maxItems: 32 })),
  region: Type.Optional(oneOf(AREAS)),
});

const identity = { cname: Cname, uid: Uid };

export const AcquireRequestSchema = Type.Object({ ...identity, clientRequest: Type.Optional(AcquireClientRequestSchema) });

/** The start body as documented (the JSON Schema of start). */
export const StartRequestSchema = Type.Object({ ...identity, clientRequest: StartClientRequestSchema });

/** The start body with clientRequest left raw: it is checked against the path mode afterwards (rules.ts). */
export const StartEnvelopeSchema = Type.Object({ ...identity, clientRequest: Type.Unknown() });

const AudioUidListSchema = withRules(
  Type.Object({ subscribeAudioUids: Type.Optional(UidList), unsubscribeAudioUids: DenyList('unSubscribeAudioUids') }),
  exclusiveAudioLists,
);
const VideoUidListSchema = withRules(
  Type.Object({ subscribeVideoUids: Type.Optional(UidList), unsubscribeVideoUids: DenyList('unSubscribeVideoUids') }),
  exclusiveVideoLists,
);

export const UpdateClientRequestSchema = Type.Object({
  streamSubscribe: Type.Optional(Type.Object({ audioUidList: Type.Optional(AudioUidListSchema), videoUidList: Type.Optional(VideoUidListSchema) })),
  webRecordingConfig: Type.Optional(Type.Object({ onhold: Type.Optional(Type.Boolean()) })),
  /** reeltime's extension (individual and mix modes): pause or resume; docs/recording-api.md, "Pause and resume". */
  recordingConfig: Type.Optional(Type.Object({ onhold: Type.Optional(Type.Boolean()) })),
  rtmpPublishConfig: Type.Optional(Type.Object({ outputs: Type.Optional(Type.Array(RtmpOutputSchema, { maxItems: 1 })) })),
  /** Optional (a deliberate reading of the spec): when sent, the start's storage with refreshed credentials. */
  storageConfig: Type.Optional(StorageConfigSchema),
});

export const UpdateRequestSchema = Type.Object({ ...identity, clientRequest: UpdateClientRequestSchema });

export const UpdateLayoutRequestSchema = Type.Object({ ...identity, clientRequest: UpdateLayoutClientRequestSchema });

export const StopRequestSchema = Type.Object({ ...identity, clientRequest: Type.Object({ async_stop: Type.Optional(Type.Boolean()) }) });

export const acquireRequest: Check<Out<typeof AcquireRequestSchema>> = checkerFor(AcquireRequestSchema);
export const startEnvelope: Check<Out<typeof StartEnvelopeSchema>> = checkerFor(StartEnvelopeSchema);
/** Structure of a start clientRequest; validateStartClientRequest (rules.ts) adds the mode and scene rules. */
export const startClientRequest: Check<Out<typeof StartClientRequestSchema>> = checkerFor(StartClientRequestSchema);
export const updateRequest: Check<Out<typeof UpdateRequestSchema>> = checkerFor(UpdateRequestSchema);
export const updateLayoutRequest: Check<Out<typeof UpdateLayoutRequestSchema>> = checkerFor(UpdateLayoutRequestSchema);
export const stopRequest: Check<Out<typeof StopRequestSchema>> = checkerFor(StopRequestSchema);
