/** Parsing of the sessions list query string and its opaque cursor (pure). */
import { ValidationError } from '../validation/index.ts';
import type { SessionQuery } from '../store/task-store.ts';

export const SESSION_STATES = ['live', 'stopping', 'ended'] as const;
export const SESSION_PAGE_SIZE = 20;
const MAX_PAGE_SIZE = 100;

interface Cursor {
  readonly startedAt: number;
  readonly sid: string;
}

/** The cursor is opaque to callers: base64url JSON of the last session's start time and sid. */
export const encodeCursor = (c: Cursor): string => Buffer.from(JSON.stringify([c.startedAt, c.sid])).toString('base64url');

function decodeCursor(text: string): Cursor {
  try {
    const v = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(v) && v.length === 2 && Number.isSafeInteger(v[0]) && typeof v[1] === 'string' && v[1].length <= 128) {
      return { startedAt: v[0] as number, sid: v[1] };
    }
  } catch {
    // falls through to the refusal
  }
  throw new ValidationError('cursor', 'must be a cursor from a previous page (nextCursor)');
}

/** A time bound: Unix milliseconds, or an ISO 8601 date/time. */
function parseTime(name: string, v: string): number {
  if (/^\d{1,15}$/.test(v)) return Number(v);
  const t = Date.parse(v);
  if (!Number.isFinite(t)) throw new ValidationError(name, 'must be Unix milliseconds or an ISO 8601 date');
  return t;
}

function one(query: Record<string, unknown>, name: string): string | undefined {
  const v = query[name];
  if (v === undefined || v === '') return undefined;
  if (typeof v !== 'string') throw new ValidationError(name, 'must be given once');
  return v;
}

/** Turns `?cname=&status=&mode=&from=&to=&cursor=&limit=` into a store query; refuses unknown values by name. */
export function parseSessionQuery(appId: string, query: Record<string, unknown>): SessionQuery {
  const cname = one(query, 'cname');
  const status = one(query, 'status');
  if (status !== undefined && !(SESSION_STATES as readonly string[]).includes(status)) {
    throw new ValidationError('status', 'must be one of live, stopping, ended');
  }
  const mode = one(query, 'mode');
  if (mode !== undefined && !['individual', 'mix', 'web'].includes(mode)) {
    throw new ValidationError('mode', 'must be one of individual, mix, web');
  }
  const from = one(query, 'from');
  const to = one(query, 'to');
  const cursor = one(query, 'cursor');
  const limitText = one(query, 'limit');
  const limit = limitText === undefined ? SESSION_PAGE_SIZE : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
    throw new ValidationError('limit', `must be an integer from 1 to ${MAX_PAGE_SIZE}`);
  }
  return {
    appId,
    ...(cname !== undefined ? { cname } : {}),
    ...(status !== undefined ? { state: status as SessionQuery['state'] } : {}),
    ...(mode !== undefined ? { mode } : {}),
    ...(from !== undefined ? { from: parseTime('from', from) } : {}),
    ...(to !== undefined ? { to: parseTime('to', to) } : {}),
    ...(cursor !== undefined ? { before: decodeCursor(cursor) } : {}),
    limit,
  };
}
