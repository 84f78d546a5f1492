import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock/index.ts';
import type { Database } from '../../db/index.ts';
import type { ChatUserRow } from '../db.ts';
import { hashPassword } from './password.ts';
import type { NewUserInput } from './username.ts';

/** A user record as the REST API returns it (never the password). */
export interface ChatUser {
  readonly uuid: string;
  readonly type: 'user';
  readonly created: number;
  readonly modified: number;
  readonly username: string;
  readonly activated: boolean;
  readonly nickname?: string;
}

export type CreateResult = { readonly kind: 'created'; readonly user: ChatUser } | { readonly kind: 'duplicate' };

function toUser(r: ChatUserRow): ChatUser {
  return {
    uuid: r.uuid,
    type: 'user',
    created: Number(r.created),
    modified: Number(r.modified),
    username: r.username,
    activated: Number(r.activated) === 1,
    ...(r.nickname !== null ? { nickname: r.nickname } : {}),
  };
}

/** A unique-constraint failure on either dialect (a registration race lost to another request). */
function isUniqueViolation(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** Persistence of chat users, keyed by (org, app, lower-case username). */
export class ChatUserStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  async find(org: string, app: string, username: string): Promise<ChatUser | undefined> {
    const r = await this.db
      .selectFrom('chat_users')
      .selectAll()
      .where('org', '=', org)
      .where('app', '=', app)
      .where('username', '=', username)
      .executeTakeFirst();
    return r ? toUser(r) : undefined;
  }

  async create(org: string, app: string, input: NewUserInput): Promise<CreateResult> {
    if (await this.find(org, app, input.username)) return { kind: 'duplicate' };
    const now = this.clock.now();
    const row: ChatUserRow = {
      uuid: randomUUID(),
      org,
      app,
      username: input.username,
      password_hash: input.password !== undefined ? await hashPassword(input.password) : null,
      nickname: input.nickname ?? null,
      activated: 1,
      created: now,
      modified: now,
    };
    try {
      await this.db.insertInto('chat_users').values(row).execute();
    } catch (e) {
      if (isUniqueViolation(e)) return { kind: 'duplicate' };
      throw e;
    }
    return { kind: 'created', user: toUser(row) };
  }
}
