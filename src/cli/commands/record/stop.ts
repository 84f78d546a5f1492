// `reeltime record stop`: stop a session and print where its files are.
import { ERROR_CODES, ServiceError } from '@reeltime/client';
import { bucketUrl, fileNames } from '../../record/index.ts';
import { session, type Context } from './context.ts';
import { playbackUrls } from './status.ts';

export async function stop(ctx: Context): Promise<number> {
  const s = session(ctx);
  try {
    const r = await ctx.client.stop(s, { cname: s.cname, uid: s.uid, clientRequest: {} });
    if (ctx.json) {
      ctx.out(JSON.stringify(r));
      return 0;
    }
    const files = fileNames(r.serverResponse);
    const uploading = 'uploadingStatus' in r.serverResponse ? r.serverResponse.uploadingStatus : undefined;
    ctx.out(`stopped sid ${r.sid}${uploading ? ` (${uploading})` : ''}: ${files.length} file${files.length === 1 ? '' : 's'} in bucket "${s.bucket}"`);
    const urls = await playbackUrls(ctx, s.sid);
    for (const f of files) ctx.out(`  ${urls.get(f) ?? bucketUrl(s.server, s.bucket, f)}`);
    return 0;
  } catch (e) {
    if (e instanceof ServiceError && e.code === ERROR_CODES.noRecordedData) {
      if (ctx.json) ctx.out(JSON.stringify(e.body));
      else ctx.out(`stopped sid ${s.sid}: nothing was recorded (code 435: nobody published in "${s.cname}")`);
      return 1;
    }
    throw e;
  }
}
