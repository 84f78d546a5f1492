// @reeltime/token: AccessToken2 ("007") builders, strict parser and verifiers. Re-exports only.
export { ByteReader, ByteWriter, TokenFormatError, TokenValueError } from './bytes.ts';
export { decodeBase64Strict } from './base64.ts';
export { buildToken, encodeToken, randomSalt, type BuildOptions, type TokenFields } from './encode.ts';
export { MAX_PAYLOAD_BYTES, SIGNATURE_BYTES, VERSION } from './format.ts';
export {
  buildAppToken,
  buildRtcTokenWithAccount,
  buildRtcTokenWithAccountAndPrivilege,
  buildRtcTokenWithRtm,
  buildRtcTokenWithUid,
  buildRtcTokenWithUidAndPrivilege,
  buildRtmToken,
  buildUserToken,
  RtcRole,
  uidToAccount,
} from './builders.ts';
export { ChatTokenBuilder, RtcTokenBuilder, RtmTokenBuilder } from './facade.ts';
export { parseToken, type ParsedToken, type ParseResult } from './parse.ts';
export type { TokenRejection, TokenRejectionReason } from './result.ts';
export { readService, UnknownServiceError, writeService } from './service-codec.ts';
export {
  ApaasPrivilege,
  ChatPrivilege,
  FcdnPrivilege,
  FpaPrivilege,
  isServiceType,
  PRIVILEGE_NAMES,
  privilegeName,
  RtcPrivilege,
  Rtm2PermissionType,
  Rtm2Privilege,
  Rtm2ResourceType,
  RtmPrivilege,
  SERVICE_NAMES,
  ServiceType,
  StreamingPrivilege,
  type ApaasService,
  type ChatService,
  type ConvoAiService,
  type FcdnService,
  type FpaService,
  type ParsedService,
  type Privileges,
  type RtcService,
  type Rtm2PermissionEntry,
  type Rtm2ResourcePermissions,
  type Rtm2Service,
  type RtmService,
  type ServiceTypeId,
  type StreamingService,
  type SttService,
  type TokenService,
} from './services.ts';
export { HEX32 } from './signing.ts';
export { describeToken, type InspectOptions, type JsonValue, type TokenDescription } from './inspect.ts';
export {
  authenticateToken,
  CHAT_TOKEN_MAX_VALIDITY_SECONDS,
  verifyChatApp,
  verifyChatUser,
  verifyRtcJoin,
  verifyRtm,
  verifySignature,
  type TokenCheck,
  type VerifyContext,
} from './verify.ts';
