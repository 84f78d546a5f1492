// Encoding and decoding of one service record (docs/token.md, Format: "Service records"). Records carry no length, so each type's layout is known here.
import { type ByteReader, type ByteWriter, TokenFormatError, TokenValueError } from './bytes.ts';
import type { Privileges, Rtm2ResourcePermissions, TokenService } from './services.ts';
import { isServiceType, SERVICE_NAMES } from './services.ts';

function writePrivileges(w: ByteWriter, privileges: Privileges): void {
  const ids = [...privileges.keys()].sort((a, b) => a - b);
  w.u16(ids.length);
  for (const id of ids) w.u16(id).u32(privileges.get(id)!);
}

/** The format is a map (ascending keys, each once); a repeated key would be ambiguous, so it is refused. */
function assertUnique(keys: readonly number[], what: string): void {
  for (let i = 1; i < keys.length; i++) {
    if (keys[i] === keys[i - 1]) throw new TokenValueError(`${what} ${keys[i]} given twice`);
  }
}

function writeRtm2Permissions(w: ByteWriter, perms: readonly Rtm2ResourcePermissions[]): void {
  const resources = [...perms].sort((a, b) => a.resourceType - b.resourceType);
  assertUnique(resources.map((r) => r.resourceType), 'rtm2 resource type');
  w.u16(resources.length);
  for (const r of resources) {
    const entries = [...r.permissions].sort((a, b) => a.permissionType - b.permissionType);
    assertUnique(entries.map((e) => e.permissionType), 'rtm2 permission type');
    w.u16(r.resourceType).u16(entries.length);
    for (const e of entries) {
      w.u16(e.permissionType).u16(e.resources.length);
      for (const s of e.resources) w.str(s);
    }
  }
}

export function writeService(w: ByteWriter, s: TokenService): void {
  w.u16(s.type);
  writePrivileges(w, s.privileges);
  switch (s.type) {
    case 1:
      w.str(s.channelName).str(s.uid);
      return;
    case 2:
    case 5:
      w.str(s.userId);
      return;
    case 3:
    case 6:
      w.str(s.channelName).str(s.account);
      return;
    case 7:
      w.str(s.roomUuid).str(s.userUuid).i16(s.role);
      return;
    case 8:
      w.str(s.userId);
      writeRtm2Permissions(w, s.permissions);
      return;
    case 4:
    case 9:
    case 10:
      return;
  }
}

function readPrivileges(r: ByteReader): Privileges {
  const n = r.u16('privilege count');
  const out = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    const id = r.u16('privilege id');
    // A repeated id keeps the last value, as the official parser does; builders never write one.
    out.set(id, r.u32('privilege value'));
  }
  return out;
}

function readRtm2Permissions(r: ByteReader): Rtm2ResourcePermissions[] {
  const out: Rtm2ResourcePermissions[] = [];
  const nRes = r.u16('rtm2 resource type count');
  for (let i = 0; i < nRes; i++) {
    const resourceType = r.u16('rtm2 resource type');
    const nPerm = r.u16('rtm2 permission count');
    const permissions = [];
    for (let j = 0; j < nPerm; j++) {
      const permissionType = r.u16('rtm2 permission type');
      const nItems = r.u16('rtm2 resource count');
      const resources: string[] = [];
      for (let k = 0; k < nItems; k++) resources.push(r.str('rtm2 resource'));
      permissions.push({ permissionType, resources });
    }
    out.push({ resourceType, permissions });
  }
  return out;
}

export class UnknownServiceError extends Error {
  override readonly name = 'UnknownServiceError';
  constructor(readonly serviceType: number) {
    super(`unknown service type ${serviceType}`);
  }
}

/** Reads one service record; throws TokenFormatError (bad bytes) or UnknownServiceError. */
export function readService(r: ByteReader): TokenService {
  const type = r.u16('service type');
  if (!isServiceType(type)) throw new UnknownServiceError(type);
  const privileges = readPrivileges(r);
  const name = SERVICE_NAMES[type];
  switch (type) {
    case 1:
      return { type, name: 'rtc', privileges, channelName: r.str('rtc channelName'), uid: r.str('rtc uid') };
    case 2:
      return { type, name: 'rtm', privileges, userId: r.str('rtm userId') };
    case 3:
      return { type, name: 'streaming', privileges, channelName: r.str('streaming channelName'), account: r.str('streaming account') };
    case 4:
      return { type, name: 'fpa', privileges };
    case 5:
      return { type, name: 'chat', privileges, userId: r.str('chat userId') };
    case 6:
      return { type, name: 'fcdn', privileges, channelName: r.str('fcdn channelName'), account: r.str('fcdn account') };
    case 7:
      return { type, name: 'apaas', privileges, roomUuid: r.str('apaas roomUuid'), userUuid: r.str('apaas userUuid'), role: r.i16('apaas role') };
    case 8:
      return { type, name: 'rtm2', privileges, userId: r.str('rtm2 userId'), permissions: readRtm2Permissions(r) };
    case 9:
      return { type, name: 'convoai', privileges };
    case 10:
      return { type, name: 'stt', privileges };
    default:
      throw new TokenFormatError(`service ${name} has no reader`);
  }
}
