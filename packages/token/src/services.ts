// Service records of an AccessToken2 (docs/token.md, Format: "Service records"): type ids, names, privilege ids and the readonly shapes.

export const ServiceType = {
  RTC: 1,
  RTM: 2,
  STREAMING: 3,
  FPA: 4,
  CHAT: 5,
  FCDN: 6,
  APAAS: 7,
  RTM2: 8,
  CONVOAI: 9,
  STT: 10,
} as const;
export type ServiceTypeId = (typeof ServiceType)[keyof typeof ServiceType];

export const RtcPrivilege = { JOIN_CHANNEL: 1, PUBLISH_AUDIO_STREAM: 2, PUBLISH_VIDEO_STREAM: 3, PUBLISH_DATA_STREAM: 4 } as const;
export const RtmPrivilege = { LOGIN: 1 } as const;
export const StreamingPrivilege = { PUBLISH_MIX_STREAM: 1, PUBLISH_RAW_STREAM: 2 } as const;
export const FpaPrivilege = { LOGIN: 1 } as const;
export const ChatPrivilege = { USER: 1, APP: 2 } as const;
export const FcdnPrivilege = { PUBLISH: 1, PLAY: 2 } as const;
export const ApaasPrivilege = { ROOM_USER: 1, USER: 2, APP: 3 } as const;
export const Rtm2Privilege = { LOGIN: 1 } as const;

/** RTM2 permission vocabulary (docs/token.md, Format: "Service records"). */
export const Rtm2ResourceType = { MESSAGE_CHANNELS: 0, STREAM_CHANNELS: 1, GROUP_CHANNELS: 2, SERVER_GROUPS: 3, USERS: 4 } as const;
export const Rtm2PermissionType = { READ: 0, WRITE: 1 } as const;

/** Privilege id → value (seconds counted from issueTs). Written in ascending id order. */
export type Privileges = ReadonlyMap<number, number>;

interface ServiceBase<T extends ServiceTypeId, N extends string> {
  readonly type: T;
  readonly name: N;
  readonly privileges: Privileges;
}

export interface RtcService extends ServiceBase<1, 'rtc'> {
  readonly channelName: string;
  /** Decimal uid, a string account, or '' (any uid). */
  readonly uid: string;
}
export interface RtmService extends ServiceBase<2, 'rtm'> {
  readonly userId: string;
}
export interface StreamingService extends ServiceBase<3, 'streaming'> {
  readonly channelName: string;
  readonly account: string;
}
export type FpaService = ServiceBase<4, 'fpa'>;
export interface ChatService extends ServiceBase<5, 'chat'> {
  /** The user's UUID; '' in app tokens. */
  readonly userId: string;
}
export interface FcdnService extends ServiceBase<6, 'fcdn'> {
  readonly channelName: string;
  readonly account: string;
}
export interface ApaasService extends ServiceBase<7, 'apaas'> {
  readonly roomUuid: string;
  readonly userUuid: string;
  /** Signed 16-bit role. */
  readonly role: number;
}
export interface Rtm2PermissionEntry {
  readonly permissionType: number;
  readonly resources: readonly string[];
}
export interface Rtm2ResourcePermissions {
  readonly resourceType: number;
  readonly permissions: readonly Rtm2PermissionEntry[];
}
export interface Rtm2Service extends ServiceBase<8, 'rtm2'> {
  readonly userId: string;
  /** Ascending resource types, each with ascending permission types. */
  readonly permissions: readonly Rtm2ResourcePermissions[];
}
export type ConvoAiService = ServiceBase<9, 'convoai'>;
export type SttService = ServiceBase<10, 'stt'>;

export type TokenService =
  | RtcService
  | RtmService
  | StreamingService
  | FpaService
  | ChatService
  | FcdnService
  | ApaasService
  | Rtm2Service
  | ConvoAiService
  | SttService;
export type ParsedService = TokenService;

export const SERVICE_NAMES: Readonly<Record<ServiceTypeId, TokenService['name']>> = Object.freeze({
  1: 'rtc',
  2: 'rtm',
  3: 'streaming',
  4: 'fpa',
  5: 'chat',
  6: 'fcdn',
  7: 'apaas',
  8: 'rtm2',
  9: 'convoai',
  10: 'stt',
});

/** Human names of privilege ids per service type, for inspection and error messages. */
export const PRIVILEGE_NAMES: Readonly<Record<ServiceTypeId, Readonly<Record<number, string>>>> = Object.freeze({
  1: { 1: 'joinChannel', 2: 'publishAudioStream', 3: 'publishVideoStream', 4: 'publishDataStream' },
  2: { 1: 'login' },
  3: { 1: 'publishMixStream', 2: 'publishRawStream' },
  4: { 1: 'login' },
  5: { 1: 'user', 2: 'app' },
  6: { 1: 'publish', 2: 'play' },
  7: { 1: 'roomUser', 2: 'user', 3: 'app' },
  8: { 1: 'login' },
  9: {},
  10: {},
});

export function isServiceType(t: number): t is ServiceTypeId {
  return Number.isInteger(t) && t >= 1 && t <= 10;
}

export function privilegeName(type: ServiceTypeId, id: number): string {
  return PRIVILEGE_NAMES[type][id] ?? `privilege${id}`;
}
