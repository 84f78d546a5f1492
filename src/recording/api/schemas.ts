/**
 * One TypeBox schema per response body of the recording API: the only declaration of each answer's shape. The
 * builders in responses.ts are typed from these (`Static<…>`), the OpenAPI document (src/openapi) lists them, and
 * the client's types are generated from them (docs/client.md). Field order here is the order the builders write.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { oneOf } from '../validation/primitives.ts';

const Text = (description: string) => Type.String({ description });
const ids = {
  cname: Text('Channel name of the request.'),
  uid: Text('User ID of the recording client in the channel.'),
  resourceId: Text('Resource ID from acquire.'),
};
const sessionIds = { ...ids, sid: Text('Recording session ID from start.') };

/** acquire. */
export const AcquireResponseSchema = Type.Object({ ...ids });

/** start, update and updateLayout: the session's identifiers. */
export const SessionResponseSchema = Type.Object({ ...ids, sid: sessionIds.sid });

export const RecordingStatusSchema = oneOf([0, 1, 2, 3, 4, 5, 6, 7, 8, 20] as const, {
  description: 'Session status (docs/recording-api.md): 4 and 5 mean recording; 6 and above mean ending or ended.',
});
export const UploadingStatusSchema = oneOf(['uploaded', 'backuped', 'unknown'] as const);

/** A fileList entry of the json form; sliceStartTime in seconds. */
export const FileEntrySchema = Type.Object({
  fileName: Text('Object key in the bucket, fileNamePrefix included.'),
  trackType: oneOf(['audio', 'video', 'audio_and_video'] as const),
  uid: Text('Recorded user; "0" in mix mode.'),
  mixedAllUser: Type.Boolean(),
  isPlayable: Type.Boolean(),
  sliceStartTime: Type.Integer({ description: 'Start of the file, Unix seconds.' }),
});

const sliceStartTime = Type.Integer({ description: 'Start of the first slice, Unix milliseconds (0 before it).' });
const JsonFileList = { fileListMode: Type.Literal('json'), fileList: Type.Array(FileEntrySchema) };
const StringFileList = { fileListMode: Type.Literal('string'), fileList: Text('Playlist (M3U8) object key.') };

/** The web recorder's own file list entry (lower-case `filename`, as the hosted service writes it). */
export const WebFileEntrySchema = Type.Object({ filename: Type.String(), sliceStartTime: Type.Integer() });
export const WebStateSchema = oneOf(['init', 'inProgress', 'exit'] as const);
export const WebRecorderPayloadSchema = Type.Object({
  fileList: Type.Array(WebFileEntrySchema),
  onhold: Type.Boolean(),
  state: WebStateSchema,
});
export const RtmpPublishPayloadSchema = Type.Object({
  outputs: Type.Array(
    Type.Object({ rtmpUrl: Type.String(), status: oneOf(['connecting', 'publishing', 'onhold', 'disconnected'] as const) }),
  ),
  state: WebStateSchema,
});

/** reeltime's extension, individual and mix modes: present (true) while paused by `recordingConfig.onhold`. */
const onhold = Type.Optional(
  Type.Literal(true, { description: "Individual and mix modes, only while paused by recordingConfig.onhold (reeltime's extension)." }),
);

// serverResponse of query, one schema per situation of the spec's query-response table.
export const QueryFileListJsonSchema = Type.Object({ status: RecordingStatusSchema, ...JsonFileList, sliceStartTime, onhold });
export const QueryFileListStringSchema = Type.Object({ status: RecordingStatusSchema, ...StringFileList, sliceStartTime, onhold });
export const QuerySnapshotSchema = Type.Object({ status: RecordingStatusSchema, sliceStartTime, onhold });
export const QueryWebServiceSchema = Type.Union([
  Type.Object({ serviceName: Type.Literal('web_recorder_service'), payload: WebRecorderPayloadSchema }),
  Type.Object({ serviceName: Type.Literal('rtmp_publish_service'), payload: RtmpPublishPayloadSchema }),
]);
export const QueryWebSchema = Type.Object({ status: RecordingStatusSchema, extensionServiceState: Type.Array(QueryWebServiceSchema) });

const query = (serverResponse: TSchema) => Type.Object({ ...sessionIds, serverResponse });

/** query per mode: individual lists files (or only the status with screenshots), mix a playlist or files, web its services. */
export const QueryIndividualResponseSchema = query(Type.Union([QueryFileListJsonSchema, QuerySnapshotSchema]));
export const QueryMixResponseSchema = query(Type.Union([QueryFileListStringSchema, QueryFileListJsonSchema]));
export const QueryWebResponseSchema = query(QueryWebSchema);
export const QueryServerResponseSchema = Type.Union([QueryFileListJsonSchema, QueryFileListStringSchema, QuerySnapshotSchema, QueryWebSchema]);
export const QueryResponseSchema = Type.Object({ ...sessionIds, serverResponse: QueryServerResponseSchema });

// serverResponse of stop.
const UploadingStatus = { uploadingStatus: UploadingStatusSchema };
export const StopFileListSchema = Type.Union([
  Type.Object({ ...JsonFileList, ...UploadingStatus }),
  Type.Object({ ...StringFileList, ...UploadingStatus }),
]);
export const StopSnapshotSchema = Type.Object(UploadingStatus);
/** Web stop: the spec names the inner object `playload`, current hosted docs `payload`; both carry it. */
export const StopWebSchema = Type.Object({
  extensionServiceState: Type.Array(
    Type.Union([
      Type.Object({
        serviceName: Type.Literal('upload_service'),
        payload: Type.Object(UploadingStatus),
        playload: Type.Object(UploadingStatus),
      }),
      Type.Object({ serviceName: Type.Literal('web_recorder_service'), payload: WebRecorderPayloadSchema, playload: WebRecorderPayloadSchema }),
    ]),
  ),
});
export const StopServerResponseSchema = Type.Union([StopFileListSchema, StopSnapshotSchema, StopWebSchema]);
export const StopResponseSchema = Type.Object({ ...sessionIds, serverResponse: StopServerResponseSchema });

/** GET /v1/ncs/ip: the addresses webhook requests come from. */
export const NcsIpResponseSchema = Type.Object({
  data: Type.Object({ service: Type.Object({ hosts: Type.Array(Type.Object({ primaryIP: Type.String() })) }) }),
});

/** A failure answered by the gateway (auth, rate limit, unknown route): `message` only. */
export const GatewayErrorSchema = Type.Object({ message: Type.String() });

/** A failure answered by the service: the identifiers known at that point, then `code` and `reason` (docs/errors.md). */
export const ServiceErrorSchema = Type.Object({
  cname: Type.Optional(Type.String()),
  uid: Type.Optional(Type.String()),
  resourceId: Type.Optional(Type.String()),
  sid: Type.Optional(Type.String()),
  code: Type.Integer(),
  reason: Type.String(),
});

// reeltime's sessions API (an extension, not the hosted service's; docs/recording-api.md, "Sessions"): every
// session, live or ended. Optional fields are absent, never null, as in the hosted service's bodies.
const UnixMs = (description: string) => Type.Integer({ description: `${description} Unix milliseconds.` });
export const SessionStateSchema = oneOf(['live', 'stopping', 'ended'] as const, {
  description: 'live: recording; stopping: stop requested, uploads finishing; ended.',
});
export const SessionSummarySchema = Type.Object({
  appId: Type.String(),
  sid: Type.String(),
  resourceId: Type.String(),
  cname: Type.String(),
  uid: Type.String(),
  mode: oneOf(['individual', 'mix', 'web'] as const),
  state: SessionStateSchema,
  status: RecordingStatusSchema,
  startedAt: UnixMs('Start.'),
  endedAt: Type.Optional(UnixMs('End, once ended.')),
  endReason: Type.Optional(oneOf(['stopped', 'idle', 'error', 'expired'] as const, { description: 'Once stopping or ended.' })),
  uploadingStatus: Type.Optional(UploadingStatusSchema),
  fileCount: Type.Integer(),
});
export const SessionListResponseSchema = Type.Object({
  sessions: Type.Array(SessionSummarySchema, { description: 'Newest first (start time, then sid).' }),
  nextCursor: Type.Optional(Type.String({ description: 'Pass as `cursor` for the next (older) page; absent on the last page.' })),
});
export const SessionFileSchema = Type.Object({
  fileName: Text('Object key in the bucket, fileNamePrefix included.'),
  trackType: oneOf(['audio', 'video', 'audio_and_video'] as const),
  uid: Text('Recorded user; "0" in mix mode.'),
  mixedAllUser: Type.Boolean(),
  isPlayable: Type.Boolean(),
  sliceStartTime: UnixMs('Start of the file.'),
  url: Type.Optional(Text('A link a browser can play when this server serves the bucket (signed and expiring unless the bucket is public).')),
});
/** One change of the session's lifecycle state or status, oldest first. */
export const SessionStatusChangeSchema = Type.Object({
  state: SessionStateSchema,
  status: RecordingStatusSchema,
  at: UnixMs('When it changed.'),
});
/** An event the control plane emitted (the recorders' own events are among the webhooks). */
export const SessionEventSchema = Type.Object({
  eventType: Type.Integer(),
  serviceType: Type.Integer(),
  createdAt: UnixMs('Emitted.'),
  details: Type.Object({}, { additionalProperties: true }),
});
export const WebhookAttemptSchema = Type.Object({
  at: UnixMs('Attempt.'),
  httpStatus: Type.Optional(Type.Integer({ description: 'The receiver\'s answer; absent when none came.' })),
  error: Type.Optional(Type.String()),
});
/** One webhook (notification) of the session and where its delivery stands. */
export const SessionWebhookSchema = Type.Object({
  sequence: Type.Integer(),
  eventType: Type.Integer(),
  serviceType: Type.Integer(),
  msgName: Type.String(),
  createdAt: UnixMs('Emitted.'),
  delivery: oneOf(['pending', 'retrying', 'delivered', 'failed', 'skipped'] as const, {
    description: 'retrying: tried and failed, another attempt is scheduled; skipped: no webhook configured for the app.',
  }),
  attempts: Type.Array(WebhookAttemptSchema, { description: 'Every delivery attempt, oldest first.' }),
  deliveredAt: Type.Optional(UnixMs('Delivered.')),
  nextAttemptAt: Type.Optional(UnixMs('Next attempt, while retrying.')),
  lastError: Type.Optional(Type.String()),
  details: Type.Object({}, { additionalProperties: true }),
});
const Count = (description: string) => Type.Integer({ minimum: 0, description });
export const SessionUploadsSchema = Type.Object(
  {
    files: Count('Objects in the bucket.'),
    bytes: Count('Their bytes.'),
    pendingFiles: Count('Objects still waiting in a backup spool (retried).'),
    pendingBytes: Count('Their bytes.'),
  },
  { description: 'What the recording has uploaded so far (each object key once, its newest copy: a playlist rewritten 20 times counts once).' },
);
export const SessionDetailResponseSchema = Type.Object({
  ...SessionSummarySchema.properties,
  clientRequest: Type.Object({}, {
    additionalProperties: true,
    description: 'The start clientRequest; each secret field that was sent reads "[redacted]" (storage keys, STS token, token, decryption secret and salt).',
  }),
  bucket: Text('storageConfig.bucket of the start request.'),
  stopRequestedAt: Type.Optional(UnixMs('Stop requested, while stopping.')),
  sliceStartTime: Type.Optional(UnixMs('Start of the first slice, once recording.')),
  onhold: Type.Boolean({ description: "Paused: webRecordingConfig.onhold in web mode, recordingConfig.onhold in individual and mix modes (reeltime's extension)." }),
  rtmp: Type.Array(Type.Object({ rtmpUrl: Type.String(), status: oneOf(['connecting', 'publishing', 'onhold', 'disconnected'] as const) }), {
    description: 'Web mode: CDN push outputs.',
  }),
  statusHistory: Type.Array(SessionStatusChangeSchema),
  files: Type.Array(SessionFileSchema),
  uploads: SessionUploadsSchema,
  events: Type.Array(SessionEventSchema, { description: 'Events the control plane emitted, oldest first.' }),
  webhooks: Type.Array(SessionWebhookSchema, { description: 'Every notification of the session, in sequence, with its delivery state.' }),
});

export type SessionSummary = Static<typeof SessionSummarySchema>;
export type SessionListResponse = Static<typeof SessionListResponseSchema>;
export type SessionDetailResponse = Static<typeof SessionDetailResponseSchema>;
export type SessionWebhook = Static<typeof SessionWebhookSchema>;
export type SessionFile = Static<typeof SessionFileSchema>;
export type SessionUploads = Static<typeof SessionUploadsSchema>;
export type SessionStatusChange = Static<typeof SessionStatusChangeSchema>;
export type SessionEvent = Static<typeof SessionEventSchema>;

export type AcquireResponse = Static<typeof AcquireResponseSchema>;
export type SessionResponse = Static<typeof SessionResponseSchema>;
export type FileEntry = Static<typeof FileEntrySchema>;
export type WebRecorderPayload = Static<typeof WebRecorderPayloadSchema>;
export type QueryWebService = Static<typeof QueryWebServiceSchema>;
export type QueryServerResponse = Static<typeof QueryServerResponseSchema>;
export type QueryResponse = Static<typeof QueryResponseSchema>;
export type StopServerResponse = Static<typeof StopServerResponseSchema>;
export type StopResponse = Static<typeof StopResponseSchema>;
export type NcsIpResponse = Static<typeof NcsIpResponseSchema>;
export type GatewayErrorBody = Static<typeof GatewayErrorSchema>;
export type ServiceErrorBody = Static<typeof ServiceErrorSchema>;

/** Every response body by name, as the OpenAPI document and the client's generated types name them. */
export const RESPONSE_BODIES = Object.freeze({
  AcquireResponse: AcquireResponseSchema,
  SessionResponse: SessionResponseSchema,
  QueryIndividualResponse: QueryIndividualResponseSchema,
  QueryMixResponse: QueryMixResponseSchema,
  QueryWebResponse: QueryWebResponseSchema,
  QueryResponse: QueryResponseSchema,
  StopResponse: StopResponseSchema,
  NcsIpResponse: NcsIpResponseSchema,
  SessionListResponse: SessionListResponseSchema,
  SessionDetailResponse: SessionDetailResponseSchema,
  GatewayErrorBody: GatewayErrorSchema,
  ServiceErrorBody: ServiceErrorSchema,
} satisfies Record<string, TSchema>);
