/**
 * The identifiers a service error echoes (cname, uid, resourceId, sid) and their rules. An error echoes a value
 * only when it passed its own rule, so a megabyte cname is never sent back (docs/errors.md).
 */
import { Cname, Uid } from './primitives.ts';
import { passes } from './schema.ts';

/** Resource IDs reeltime issues are 64 base64url characters; other well-formed lengths are looked up, never echoed raw. */
export const RESOURCE_ID_PATTERN = /^[A-Za-z0-9_-]{16,256}$/;
/** Session IDs are 32 hex characters; anything of this shape may be looked up and echoed. */
export const SID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;

export interface Identifiers {
  cname?: string | undefined;
  uid?: string | undefined;
  resourceId?: string | undefined;
  sid?: string | undefined;
}

/** The identifiers that may be echoed: each present only when it passes its rule. */
export function echoable(ids: Identifiers): Identifiers {
  const out: Identifiers = {};
  if (ids.cname !== undefined && passes(Cname, ids.cname)) out.cname = ids.cname;
  if (ids.uid !== undefined && passes(Uid, ids.uid)) out.uid = ids.uid;
  if (ids.resourceId !== undefined && RESOURCE_ID_PATTERN.test(ids.resourceId)) out.resourceId = ids.resourceId;
  if (ids.sid !== undefined && SID_PATTERN.test(ids.sid)) out.sid = ids.sid;
  return out;
}
