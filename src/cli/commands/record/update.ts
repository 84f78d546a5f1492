// `reeltime record update`: subscriptions, onhold or the mix layout of a session.
import { LAYOUTS, updateClientRequest } from '../../record/index.ts';
import { session, uidList, usage, type Context } from './context.ts';

export async function update(ctx: Context): Promise<number> {
  const v = ctx.values;
  const s = session(ctx);
  const ids = { cname: s.cname, uid: s.uid };
  let answered = false;
  if (v.layout !== undefined) {
    const layout = LAYOUTS[v.layout as keyof typeof LAYOUTS];
    if (layout === undefined) throw usage('--layout must be floating, bestfit or vertical');
    const r = await ctx.client.updateLayout(s, { ...ids, clientRequest: { mixedVideoLayout: layout } });
    ctx.out(ctx.json ? JSON.stringify(r) : `layout of sid ${r.sid} is now ${v.layout}`);
    answered = true;
  }
  if (v.audio !== undefined || v.video !== undefined || v.onhold !== undefined) {
    if (v.onhold !== undefined && v.onhold !== 'true' && v.onhold !== 'false') throw usage('--onhold must be true or false');
    const clientRequest = updateClientRequest(s.mode, {
      audio: v.audio !== undefined ? uidList('audio', v.audio) : undefined,
      video: v.video !== undefined ? uidList('video', v.video) : undefined,
      onhold: v.onhold === undefined ? undefined : v.onhold === 'true',
    });
    const r = await ctx.client.update(s, { ...ids, clientRequest });
    ctx.out(ctx.json ? JSON.stringify(r) : `updated sid ${r.sid}`);
    answered = true;
  }
  if (!answered) throw usage('update needs --audio, --video, --onhold or --layout');
  return 0;
}
