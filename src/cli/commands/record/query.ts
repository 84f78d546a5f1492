// `reeltime record query`: status and files of a session, once.
import { bucketUrl, fileNames, statusLine } from '../../record/index.ts';
import { session, type Context } from './context.ts';
import { playbackUrls, uploadsOf, view } from './status.ts';

export async function query(ctx: Context): Promise<number> {
  const s = session(ctx);
  const q = await ctx.client.query(s);
  if (ctx.json) {
    ctx.out(JSON.stringify(q));
    return 0;
  }
  ctx.out(statusLine(view(s, q, await uploadsOf(ctx, s.sid))));
  const urls = await playbackUrls(ctx, s.sid);
  for (const f of fileNames(q.serverResponse)) ctx.out(`  ${urls.get(f) ?? bucketUrl(s.server, s.bucket, f)}`);
  return 0;
}
