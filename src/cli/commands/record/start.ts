// `reeltime record start`: acquire and start a recording of a channel, remember it, optionally wait until it records.
import { readFileSync } from 'node:fs';
import { buildRtcTokenWithUid, type StartRequest } from '@reeltime/client';
import { isRecording, LAYOUTS, localStorageConfig, saveSession, sceneOf, startClientRequest, type SavedSession } from '../../record/index.ts';
import { mode, number, usage, type Context } from './context.ts';
import { poll } from './status.ts';

export async function start(ctx: Context): Promise<number> {
  const v = ctx.values;
  if (!v.channel) throw usage('--channel is required');
  const m = mode(v.mode);
  if (m === 'web' && !v.url) throw usage('--url is required for --mode web');
  const uid = v.uid ?? String(100000 + Math.floor(Math.random() * 900000));
  if (!/^\d+$/.test(uid) || Number(uid) < 1 || Number(uid) > 0xffffffff) throw usage('--uid must be an integer from 1 to 4294967295');
  const formats = (v.format ?? 'hls').split(',');
  if (formats.some((f) => f !== 'hls' && f !== 'mp4')) throw usage('--format must be hls, mp4 or hls,mp4');
  const layout = v.layout === undefined ? 1 : LAYOUTS[v.layout as keyof typeof LAYOUTS];
  if (layout === undefined) throw usage('--layout must be floating, bestfit or vertical');
  if (v.profile !== undefined && v.profile !== 'communication' && v.profile !== 'live') throw usage('--profile must be communication or live');
  const bucket = v.bucket ?? 'reeltime';
  let storageConfig = localStorageConfig(bucket);
  if (v.storage !== undefined) {
    try {
      storageConfig = JSON.parse(readFileSync(v.storage, 'utf8')) as typeof storageConfig;
    } catch (e) {
      throw usage(`--storage: ${(e as Error).message}`);
    }
  }
  const width = number('width', v.width, m === 'web' ? 1280 : 640, 16, 1920);
  const height = number('height', v.height, m === 'web' ? 720 : 360, 16, 1920);
  const token = v.token ?? buildRtcTokenWithUid(ctx.appId, ctx.appCertificate, v.channel, Number(uid), 2, 86400, 86400);
  const clientRequest = startClientRequest({
    mode: m,
    token,
    storageConfig,
    formats: formats as ('hls' | 'mp4')[],
    profile: (v.profile as 'communication' | 'live' | undefined) ?? 'communication',
    layout,
    width,
    height,
    url: v.url,
    maxIdleTime: number('max-idle', v['max-idle'], 30, 5, 2592000),
  });
  const body: StartRequest = { cname: v.channel, uid, clientRequest };
  const acquired = await ctx.client.acquire({ cname: v.channel, uid, clientRequest: { scene: sceneOf(m) } });
  const started = await ctx.client.start(acquired.resourceId, m, body);
  const s: SavedSession = {
    server: ctx.server,
    appId: ctx.appId,
    cname: v.channel,
    uid,
    mode: m,
    resourceId: started.resourceId,
    sid: started.sid,
    bucket: typeof storageConfig.bucket === 'string' ? storageConfig.bucket : bucket,
    startedAt: Date.now(),
  };
  saveSession(ctx.dataDir, s);
  if (ctx.json && !v.wait) ctx.out(JSON.stringify(started));
  if (!ctx.json) ctx.out(`started ${m} recording of "${v.channel}" as uid ${uid}: resourceId ${started.resourceId} sid ${started.sid}`);
  if (!v.wait) return 0;
  const timeoutMs = number('timeout', v.timeout, 90, 1, 3600) * 1000;
  const q = await poll(ctx, s, 1000, (r) => isRecording(r.serverResponse.status), Date.now() + timeoutMs);
  if (!q) {
    process.stderr.write('reeltime record: the session ended before it recorded (query answers 404)\n');
    return 1;
  }
  return 0;
}
