/**
 * What recorders are told about whom to record, in their own terms, and the one place the API's request shapes
 * (`recordingConfig` lists, `update.streamSubscribe`) are translated into it. `#allstream#` is resolved here, so
 * no recorder knows the API's spelling. Pure.
 */
import type { LayerChoice } from '../../channel/index.ts';
import type { StorageConfig } from '../../storage/index.ts';
import { ALL_STREAMS } from '../validation/index.ts';
import type { StartClientRequest, UpdateClientRequest } from '../validation/types.ts';

/** Whose streams of one kind a request names: everybody, only these uids, or everybody but these. */
export type UidSelection =
  | { readonly kind: 'everyone' }
  | { readonly kind: 'only'; readonly uids: readonly string[] }
  | { readonly kind: 'except'; readonly uids: readonly string[] };

/** Per kind, the list a request gave; a kind it gave no list for is absent. */
export interface UidLists {
  readonly audio?: UidSelection | undefined;
  readonly video?: UidSelection | undefined;
}

/** A start's subscription: which kinds are recorded at all (`streamTypes`) and the lists it gave. */
export interface SubscriptionRequest {
  readonly audio: boolean;
  readonly video: boolean;
  readonly lists: UidLists;
  /** `videoStreamType`: 0 the high stream of a simulcast (dual-stream) publisher, 1 the low one. */
  readonly videoLayer: LayerChoice;
}

/** A change to a running session (update). */
export interface RecorderUpdate {
  /** Fresh credentials for the same bucket. */
  readonly storage?: StorageConfig | undefined;
  /** Replaces the list of each kind it names. */
  readonly lists?: UidLists | undefined;
  /**
   * Pause (true) or resume (false) recording: web mode's `webRecordingConfig.onhold`, and `recordingConfig.onhold`,
   * reeltime's extension for individual mode.
   */
  readonly onhold?: boolean | undefined;
  /** Web mode: the new CDN push target (`rtmpPublishConfig.outputs[0].rtmpUrl`). */
  readonly rtmpUrl?: string | undefined;
}

const NOBODY: UidSelection = Object.freeze({ kind: 'only', uids: Object.freeze([]) });
const EVERYONE: UidSelection = Object.freeze({ kind: 'everyone' });

function selection(subscribe: readonly string[] | undefined, unsubscribe: readonly string[] | undefined): UidSelection | undefined {
  if (subscribe) return subscribe.includes(ALL_STREAMS) ? EVERYONE : Object.freeze({ kind: 'only', uids: Object.freeze([...subscribe]) });
  if (unsubscribe) return unsubscribe.includes(ALL_STREAMS) ? NOBODY : Object.freeze({ kind: 'except', uids: Object.freeze([...unsubscribe]) });
  return undefined;
}

function lists(a: UidSelection | undefined, v: UidSelection | undefined): UidLists {
  return Object.freeze({ ...(a ? { audio: a } : {}), ...(v ? { video: v } : {}) });
}

/** The part of a start's `recordingConfig` that says whom to record. */
export type RequestedStreams = Pick<
  NonNullable<StartClientRequest['recordingConfig']>,
  'streamTypes' | 'subscribeAudioUids' | 'unsubscribeAudioUids' | 'subscribeVideoUids' | 'unsubscribeVideoUids' | 'videoStreamType'
>;

export function subscriptionRequest(rc: RequestedStreams | undefined): SubscriptionRequest {
  const types = rc?.streamTypes ?? 2;
  return Object.freeze({
    audio: types !== 1,
    video: types !== 0,
    lists: lists(selection(rc?.subscribeAudioUids, rc?.unsubscribeAudioUids), selection(rc?.subscribeVideoUids, rc?.unsubscribeVideoUids)),
    videoLayer: rc?.videoStreamType === 1 ? 'low' : 'high',
  });
}

export function recorderUpdate(req: UpdateClientRequest): RecorderUpdate {
  const s = req.streamSubscribe;
  const audio = s?.audioUidList ? (selection(s.audioUidList.subscribeAudioUids, s.audioUidList.unsubscribeAudioUids) ?? EVERYONE) : undefined;
  const video = s?.videoUidList ? (selection(s.videoUidList.subscribeVideoUids, s.videoUidList.unsubscribeVideoUids) ?? EVERYONE) : undefined;
  return Object.freeze({
    ...(req.storageConfig ? { storage: req.storageConfig } : {}),
    ...(s ? { lists: lists(audio, video) } : {}),
    ...(req.webRecordingConfig?.onhold !== undefined ? { onhold: req.webRecordingConfig.onhold } : {}),
    ...(req.recordingConfig?.onhold !== undefined ? { onhold: req.recordingConfig.onhold } : {}),
    ...(req.rtmpPublishConfig?.outputs?.[0] ? { rtmpUrl: req.rtmpPublishConfig.outputs[0].rtmpUrl } : {}),
  });
}
