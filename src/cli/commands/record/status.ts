// How a session's state is shown: the status line (rewritten in place on a terminal), polling, playback links.
import { ERROR_CODES, ServiceError, type QueryResponse, type SessionDetailResponse } from '@reeltime/client';
import { fileNames, statusLine, type SavedSession } from '../../record/index.ts';
import type { Context } from './context.ts';

export function view(s: SavedSession, q: QueryResponse, uploaded: SessionUploads | undefined) {
  return { cname: s.cname, sid: s.sid, mode: s.mode, status: q.serverResponse.status, files: fileNames(q.serverResponse).length, elapsedMs: Date.now() - s.startedAt, uploaded };
}

/** The sessions API's upload totals; undefined from a server without it (the hosted service). */
export async function uploadsOf(ctx: Context, sid: string): Promise<SessionUploads | undefined> {
  try {
    return (await ctx.client.getSession(sid)).uploads;
  } catch {
    return undefined;
  }
}

export type SessionUploads = SessionDetailResponse['uploads'];

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A status line rewritten in place on a terminal; plain lines (only when something but the time changed) otherwise. */
function statusPrinter(ctx: Context) {
  const tty = process.stdout.isTTY === true && !ctx.json;
  let last = '';
  return {
    show(s: SavedSession, q: QueryResponse, uploaded: SessionUploads | undefined) {
      const v = view(s, q, uploaded);
      if (ctx.json) return ctx.out(JSON.stringify(uploaded ? { ...q, uploads: uploaded } : q));
      if (tty) return void process.stdout.write(`\r\x1b[2K${statusLine(v)}`);
      const key = `${v.status}/${v.files}/${uploaded?.files}`;
      if (key !== last) ctx.out(statusLine(v));
      last = key;
    },
    done() {
      if (tty) process.stdout.write('\n');
    },
  };
}

/** Polls query until `until` holds, the session ends (404: resolves undefined) or `deadline` passes (throws). */
export async function poll(ctx: Context, s: SavedSession, intervalMs: number, until: (q: QueryResponse) => boolean, deadline = Infinity) {
  const printer = statusPrinter(ctx);
  let stopped = false;
  const onSignal = () => void (stopped = true);
  process.once('SIGINT', onSignal);
  try {
    for (;;) {
      let q: QueryResponse;
      try {
        q = await ctx.client.query(s);
      } catch (e) {
        if (e instanceof ServiceError && e.code === ERROR_CODES.workerNotFound) return undefined;
        throw e;
      }
      printer.show(s, q, await uploadsOf(ctx, s.sid));
      if (until(q) || stopped) return q;
      if (Date.now() > deadline) throw new Error(`not recording after the timeout (status ${q.serverResponse.status})`);
      await sleep(intervalMs);
    }
  } finally {
    process.off('SIGINT', onSignal);
    printer.done();
  }
}

/**
 * The links the sessions API hands out per file (signed and expiring in production, where an unsigned bucket URL is
 * refused); empty from a server without that API or whose files are not in its local bucket.
 */
export async function playbackUrls(ctx: Context, sid: string): Promise<Map<string, string>> {
  try {
    return new Map((await ctx.client.getSession(sid)).files.flatMap((f) => (f.url ? [[f.fileName, f.url] as const] : [])));
  } catch {
    return new Map();
  }
}
