// Object facades with the official npm names, for code ported from agora-token.
import {
  buildAppToken,
  buildRtcTokenWithAccount,
  buildRtcTokenWithAccountAndPrivilege,
  buildRtcTokenWithRtm,
  buildRtcTokenWithUid,
  buildRtcTokenWithUidAndPrivilege,
  buildRtmToken,
  buildUserToken,
} from './builders.ts';

export const ChatTokenBuilder = Object.freeze({ buildAppToken, buildUserToken });

export const RtcTokenBuilder = Object.freeze({
  buildTokenWithUid: buildRtcTokenWithUid,
  buildTokenWithUserAccount: buildRtcTokenWithAccount,
  buildTokenWithUidAndPrivilege: buildRtcTokenWithUidAndPrivilege,
  /** Capital B as in the official Node package. */
  BuildTokenWithUserAccountAndPrivilege: buildRtcTokenWithAccountAndPrivilege,
  buildTokenWithUserAccountAndPrivilege: buildRtcTokenWithAccountAndPrivilege,
  buildTokenWithRtm: buildRtcTokenWithRtm,
});

export const RtmTokenBuilder = Object.freeze({ buildToken: buildRtmToken });
