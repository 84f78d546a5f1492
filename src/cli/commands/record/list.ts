// `reeltime record list`: sessions, newest first (the sessions API).
import { mode, number, usage, type Context } from './context.ts';

export async function list(ctx: Context): Promise<number> {
  const v = ctx.values;
  if (v.status !== undefined && !['live', 'stopping', 'ended'].includes(v.status)) throw usage('--status must be live, stopping or ended');
  const limit = number('limit', v.limit, 20, 1, 100);
  const page = await ctx.client.listSessions({
    ...(v.channel !== undefined ? { cname: v.channel } : {}),
    ...(v.status !== undefined ? { status: v.status as 'live' | 'stopping' | 'ended' } : {}),
    ...(v.mode !== undefined ? { mode: mode(v.mode) } : {}),
    limit,
  });
  if (ctx.json) {
    ctx.out(JSON.stringify(page));
    return 0;
  }
  if (page.sessions.length === 0) ctx.out('no sessions');
  for (const x of page.sessions) {
    const started = new Date(x.startedAt).toISOString().replace('T', ' ').slice(0, 19);
    ctx.out(`${x.sid}  ${x.mode.padEnd(10)} ${x.state.padEnd(8)} ${String(x.status).padStart(2)}  ${started}  ${String(x.fileCount).padStart(3)} files  "${x.cname}" uid ${x.uid}`);
  }
  if (page.nextCursor) ctx.out(`(more: narrow with --channel, --status or --mode, or raise --limit)`);
  return 0;
}
