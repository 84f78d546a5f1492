// `reeltime record files`: every file of a session (also once it ended), with its URL.
import { findSavedSession } from '../../record/index.ts';
import { usage, type Context } from './context.ts';

export async function files(ctx: Context): Promise<number> {
  const sid = ctx.values.sid ?? findSavedSession(ctx.dataDir, undefined)?.sid;
  if (sid === undefined) throw usage('--sid is required (no session started yet from this data dir)');
  const d = await ctx.client.getSession(sid);
  if (ctx.json) {
    ctx.out(JSON.stringify(d.files));
    return 0;
  }
  ctx.out(`${d.files.length} file${d.files.length === 1 ? '' : 's'} of sid ${d.sid} (${d.mode}, ${d.state}${d.uploadingStatus ? `, ${d.uploadingStatus}` : ''}):`);
  for (const f of d.files) ctx.out(`  ${f.url ?? f.fileName}`);
  return 0;
}
