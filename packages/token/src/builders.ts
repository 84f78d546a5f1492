// The official builders' operations (docs/token.md, Format: "What the builders write"). Each returns '' when it cannot build, never throws.
import { buildToken, type BuildOptions } from './encode.ts';
import { ChatPrivilege, RtcPrivilege, RtmPrivilege, type RtcService } from './services.ts';

export const RtcRole = Object.freeze({ PUBLISHER: 1, SUBSCRIBER: 2 } as const);

/** Chat token with app privileges (REST calls): Chat service, empty userId, privilege app = expire. */
export function buildAppToken(appId: string, appCertificate: string, expire: number, opts?: BuildOptions): string {
  return buildToken(
    { appId, appCertificate, expire, services: [{ type: 5, name: 'chat', userId: '', privileges: new Map([[ChatPrivilege.APP, expire]]) }] },
    opts,
  );
}

/** Chat token with user privileges (SDK login): Chat service with the user's UUID, privilege user = expire. */
export function buildUserToken(appId: string, appCertificate: string, uuid: string, expire: number, opts?: BuildOptions): string {
  if (typeof uuid !== 'string') return '';
  return buildToken(
    { appId, appCertificate, expire, services: [{ type: 5, name: 'chat', userId: uuid, privileges: new Map([[ChatPrivilege.USER, expire]]) }] },
    opts,
  );
}

/** The number 0 means "any uid" and is stored as ''; other numbers as decimal text (docs/token.md, Format: "What the builders write"). */
export function uidToAccount(uid: number): string {
  return uid === 0 ? '' : `${uid}`;
}

function rtcService(channelName: string, account: string, privileges: ReadonlyMap<number, number>): RtcService {
  return { type: 1, name: 'rtc', channelName, uid: account, privileges };
}

function buildRtc(
  appId: string,
  appCertificate: string,
  channelName: string,
  account: string,
  tokenExpire: number,
  privileges: ReadonlyMap<number, number>,
  opts: BuildOptions | undefined,
): string {
  if (typeof channelName !== 'string' || typeof account !== 'string') return '';
  return buildToken({ appId, appCertificate, expire: tokenExpire, services: [rtcService(channelName, account, privileges)] }, opts);
}

function rolePrivileges(role: number, privilegeExpire: number): Map<number, number> {
  const p = new Map([[RtcPrivilege.JOIN_CHANNEL as number, privilegeExpire]]);
  if (role === RtcRole.PUBLISHER) {
    p.set(RtcPrivilege.PUBLISH_AUDIO_STREAM, privilegeExpire);
    p.set(RtcPrivilege.PUBLISH_VIDEO_STREAM, privilegeExpire);
    p.set(RtcPrivilege.PUBLISH_DATA_STREAM, privilegeExpire);
  }
  return p;
}

/**
 * RTC token for a numeric uid (0 = any uid). PUBLISHER gets join + the three publish privileges, any other role
 * join only. `privilegeExpire` defaults to 0 exactly as in the official builder, so omitted arguments still give
 * byte-identical tokens; reeltime's verifier treats 0 as already expired, so callers should pass it.
 */
export function buildRtcTokenWithUid(
  appId: string,
  appCertificate: string,
  channelName: string,
  uid: number,
  role: number,
  tokenExpire: number,
  privilegeExpire: number = 0,
  opts?: BuildOptions,
): string {
  if (typeof uid !== 'number') return '';
  return buildRtc(appId, appCertificate, channelName, uidToAccount(uid), tokenExpire, rolePrivileges(role, privilegeExpire), opts);
}

/** RTC token for a string account (stored unchanged; '' = any user). */
export function buildRtcTokenWithAccount(
  appId: string,
  appCertificate: string,
  channelName: string,
  account: string,
  role: number,
  tokenExpire: number,
  privilegeExpire: number = 0,
  opts?: BuildOptions,
): string {
  return buildRtc(appId, appCertificate, channelName, account, tokenExpire, rolePrivileges(role, privilegeExpire), opts);
}

function explicitPrivileges(join: number, audio: number, video: number, data: number): Map<number, number> {
  return new Map([
    [RtcPrivilege.JOIN_CHANNEL as number, join],
    [RtcPrivilege.PUBLISH_AUDIO_STREAM, audio],
    [RtcPrivilege.PUBLISH_VIDEO_STREAM, video],
    [RtcPrivilege.PUBLISH_DATA_STREAM, data],
  ]);
}

/** RTC token with each of the four privileges given its own lifetime (seconds from issueTs). */
export function buildRtcTokenWithUidAndPrivilege(
  appId: string,
  appCertificate: string,
  channelName: string,
  uid: number,
  tokenExpire: number,
  joinExpire: number,
  pubAudioExpire: number,
  pubVideoExpire: number,
  pubDataExpire: number,
  opts?: BuildOptions,
): string {
  if (typeof uid !== 'number') return '';
  const p = explicitPrivileges(joinExpire, pubAudioExpire, pubVideoExpire, pubDataExpire);
  return buildRtc(appId, appCertificate, channelName, uidToAccount(uid), tokenExpire, p, opts);
}

export function buildRtcTokenWithAccountAndPrivilege(
  appId: string,
  appCertificate: string,
  channelName: string,
  account: string,
  tokenExpire: number,
  joinExpire: number,
  pubAudioExpire: number,
  pubVideoExpire: number,
  pubDataExpire: number,
  opts?: BuildOptions,
): string {
  const p = explicitPrivileges(joinExpire, pubAudioExpire, pubVideoExpire, pubDataExpire);
  return buildRtc(appId, appCertificate, channelName, account, tokenExpire, p, opts);
}

/** RTM token: RTM service with the user id, privilege login = expire. */
export function buildRtmToken(appId: string, appCertificate: string, userId: string, expire: number, opts?: BuildOptions): string {
  if (typeof userId !== 'string') return '';
  return buildToken(
    { appId, appCertificate, expire, services: [{ type: 2, name: 'rtm', userId, privileges: new Map([[RtmPrivilege.LOGIN, expire]]) }] },
    opts,
  );
}

/** RTC (as buildRtcTokenWithAccount) plus an RTM service for the same account with login = tokenExpire. */
export function buildRtcTokenWithRtm(
  appId: string,
  appCertificate: string,
  channelName: string,
  account: string,
  role: number,
  tokenExpire: number,
  privilegeExpire: number = 0,
  opts?: BuildOptions,
): string {
  if (typeof channelName !== 'string' || typeof account !== 'string') return '';
  return buildToken(
    {
      appId,
      appCertificate,
      expire: tokenExpire,
      services: [
        rtcService(channelName, account, rolePrivileges(role, privilegeExpire)),
        { type: 2, name: 'rtm', userId: account, privileges: new Map([[RtmPrivilege.LOGIN, tokenExpire]]) },
      ],
    },
    opts,
  );
}
