// Typed access to the official npm `agora-token` (dev dependency) as a test and benchmark oracle.
import { createRequire } from 'node:module';
import type { TokenService } from '../services.ts';

const require = createRequire(import.meta.url);

interface AgoraService {
  add_privilege(id: number, value: number): void;
  service_type(): number;
}
interface AgoraServiceClass {
  new (...args: readonly unknown[]): AgoraService;
}
interface AgoraAccessToken2 {
  salt: number;
  appId: string | Buffer;
  issueTs: number;
  expire: number;
  services: AgoraService[];
  add_service(s: AgoraService): void;
  build(): string;
  from_string(token: string): boolean;
  verifySignature(appCertificate: string): boolean;
}
interface AgoraModule {
  AccessToken2: new (appId: string, appCertificate: string, issueTs: number, expire: number) => AgoraAccessToken2;
  ServiceRtc: AgoraServiceClass;
  ServiceRtm: AgoraServiceClass;
  ServiceStreaming: AgoraServiceClass;
  ServiceFpa: AgoraServiceClass;
  ServiceChat: AgoraServiceClass;
  ServiceFCdn: AgoraServiceClass;
  ServiceApaas: AgoraServiceClass;
  ServiceRtm2: AgoraServiceClass;
  Rtm2Permissions: new () => { add(resourceType: number, permissionType: number, resources: readonly string[]): void };
}

export const agora = require('agora-token/src/AccessToken2') as AgoraModule;

type Builder = (...args: readonly unknown[]) => string;
export const agoraBuilders = require('agora-token') as {
  ChatTokenBuilder: { buildAppToken: Builder; buildUserToken: Builder };
  RtcTokenBuilder: Record<
    'buildTokenWithUid' | 'buildTokenWithUserAccount' | 'buildTokenWithUidAndPrivilege' | 'BuildTokenWithUserAccountAndPrivilege' | 'buildTokenWithRtm',
    Builder
  >;
  RtmTokenBuilder: { buildToken: Builder };
};

function toAgoraService(s: TokenService): AgoraService {
  let out: AgoraService;
  switch (s.type) {
    case 1:
      out = new agora.ServiceRtc(s.channelName, s.uid);
      break;
    case 2:
      out = new agora.ServiceRtm(s.userId);
      break;
    case 3:
      out = new agora.ServiceStreaming(s.channelName, s.account);
      break;
    case 4:
      out = new agora.ServiceFpa();
      break;
    case 5:
      out = new agora.ServiceChat(s.userId);
      break;
    case 6:
      out = new agora.ServiceFCdn(s.channelName, s.account);
      break;
    case 7:
      out = new agora.ServiceApaas(s.roomUuid, s.userUuid, s.role);
      break;
    case 8: {
      const p = new agora.Rtm2Permissions();
      for (const r of s.permissions) for (const e of r.permissions) p.add(r.resourceType, e.permissionType, e.resources);
      out = new agora.ServiceRtm2(s.userId, p);
      break;
    }
    default:
      throw new Error(`oracle cannot build service ${s.type}`);
  }
  for (const [id, v] of s.privileges) out.add_privilege(id, v);
  return out;
}

export interface OracleFields {
  readonly appId: string;
  readonly appCertificate: string;
  readonly issueTs: number;
  readonly expire: number;
  readonly salt: number;
  readonly services: readonly TokenService[];
}

/** Builds with the official low-level class, fixed salt and issueTs. */
export function agoraBuild(f: OracleFields): string {
  const t = new agora.AccessToken2(f.appId, f.appCertificate, f.issueTs, f.expire);
  t.salt = f.salt;
  for (const s of f.services) t.add_service(toAgoraService(s));
  return t.build();
}

export interface OracleParsed {
  readonly appId: string;
  readonly issueTs: number;
  readonly expire: number;
  readonly salt: number;
  /** Each service as a plain object: type, privileges (id → value) and its string fields. */
  readonly services: readonly Record<string, unknown>[];
}

function plain(s: AgoraService): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s)) {
    const key = k.replace(/^__/, '');
    out[key] = Buffer.isBuffer(v) ? v.toString('utf8') : v;
  }
  return out;
}

/** Parses with the official class: from_string, then plain fields (Buffers decoded as UTF-8). */
export function agoraParse(token: string): OracleParsed | undefined {
  const t = new agora.AccessToken2('', '', 0, 0);
  if (!t.from_string(token)) return undefined;
  return {
    appId: t.appId.toString(),
    issueTs: t.issueTs,
    expire: t.expire,
    salt: t.salt,
    services: t.services.map(plain),
  };
}

/** The official verification: from_string, then verifySignature. */
export function agoraVerify(token: string, appCertificate: string): boolean {
  const t = new agora.AccessToken2('', '', 0, 0);
  return t.from_string(token) && t.verifySignature(appCertificate);
}
