// `reeltime record watch`: a live status line until the session ends.
import { number, session, type Context } from './context.ts';
import { poll } from './status.ts';

export async function watch(ctx: Context): Promise<number> {
  const s = session(ctx);
  const intervalMs = number('interval', ctx.values.interval, 2, 0.1, 3600) * 1000;
  const q = await poll(ctx, s, intervalMs, () => false);
  if (!q && !ctx.json) ctx.out(`session ${s.sid} has ended`);
  return 0;
}
