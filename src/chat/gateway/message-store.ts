import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/index.ts';
import type { TextMessage } from './protocol.ts';

/** Messages persist until acknowledged, so offline users and gateway restarts lose nothing. */
export class MessageStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly org: string,
    private readonly app: string,
  ) {}

  async save(from: string, to: string, text: string, timestamp: number): Promise<TextMessage> {
    const id = randomUUID();
    await this.db
      .insertInto('chat_messages')
      .values({ id, org: this.org, app: this.app, from_user: from, to_user: to, body: text, created: timestamp })
      .execute();
    return { id, from, to, text, timestamp };
  }

  /** Undelivered messages for a user, oldest first, a page at a time. */
  async pending(to: string, limit = 1000): Promise<TextMessage[]> {
    const out: TextMessage[] = [];
    for await (const page of this.pendingPages(to, limit)) out.push(...page);
    return out;
  }

  /** Pages of undelivered messages in delivery order, so a long backlog is never loaded at once. */
  async *pendingPages(to: string, pageSize = 500): AsyncGenerator<TextMessage[]> {
    let after = -1;
    for (;;) {
      const rows = await this.db
        .selectFrom('chat_messages')
        .select(['seq', 'id', 'from_user', 'to_user', 'body', 'created'])
        .where('org', '=', this.org)
        .where('app', '=', this.app)
        .where('to_user', '=', to)
        .where('delivered', '=', 0)
        .where('seq', '>', after)
        .orderBy('seq')
        .limit(pageSize)
        .execute();
      if (rows.length === 0) return;
      after = Number(rows[rows.length - 1]!.seq);
      yield rows.map((r) => ({ id: r.id, from: r.from_user, to: r.to_user, text: r.body, timestamp: Number(r.created) }));
      if (rows.length < pageSize) return;
    }
  }

  /** Marks a message delivered; only its recipient can. */
  async markDelivered(id: string, to: string): Promise<void> {
    await this.db
      .updateTable('chat_messages')
      .set({ delivered: 1 })
      .where('id', '=', id)
      .where('to_user', '=', to)
      .where('org', '=', this.org)
      .where('app', '=', this.app)
      .execute();
  }
}
