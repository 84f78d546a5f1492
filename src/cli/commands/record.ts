// `reeltime record start|query|update|stop|watch|list|files`: the recording API through @reeltime/client (docs/client.md).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  buildRtcTokenWithUid,
  ERROR_CODES,
  RecordingClient,
  RecordingError,
  ServiceError,
  type QueryResponse,
  type RecordingMode,
  type SessionDetailResponse,
  type StartRequest,
} from '@reeltime/client';
import { loadConfig } from '../../server/config.ts';
import { UsageError, type CommandRunner } from '../command.ts';
import {
  bucketUrl,
  fileNames,
  findSavedSession,
  isRecording,
  LAYOUTS,
  localStorageConfig,
  saveSession,
  sceneOf,
  startClientRequest,
  statusLine,
  updateClientRequest,
  type SavedSession,
} from '../record/index.ts';

const USAGE = `usage: reeltime record <command> [options]

commands:
  start   --channel C [--mode individual|mix|web] [--uid N] [--layout floating|bestfit|vertical] [--url URL]
          [--format hls|mp4|hls,mp4] [--bucket B | --storage storage.json] [--profile communication|live]
          [--width W --height H] [--max-idle S] [--token T] [--wait [--timeout S]]
  query   [--sid S]                       status and files, once
  update  [--sid S] [--audio u1,u2|all] [--video u1,u2|all] [--onhold true|false] [--layout ...]
                                          --onhold true pauses the recording, false resumes it (every mode)
  stop    [--sid S]                       stop; prints where the files are
  watch   [--sid S] [--interval S]        a live status line until the session ends
  list    [--channel C] [--status live|stopping|ended] [--mode M] [--limit N]   sessions, newest first
  files   [--sid S]                       every file of a session (also once it ended), with its URL

query, update, stop and watch act on the last session started from this data dir, or --sid; or name one fully
with --resource R --sid S --mode M --channel C --uid N.
every command: [--server URL] [--app-id A] [--customer-id ID --customer-secret SECRET] [--json]
Defaults come from the config (REELTIME_* and the data dir's dev-credentials.json).`;

const OPTIONS = {
  server: { type: 'string' },
  'app-id': { type: 'string' },
  'customer-id': { type: 'string' },
  'customer-secret': { type: 'string' },
  json: { type: 'boolean' },
  channel: { type: 'string' },
  uid: { type: 'string' },
  mode: { type: 'string' },
  layout: { type: 'string' },
  url: { type: 'string' },
  format: { type: 'string' },
  bucket: { type: 'string' },
  storage: { type: 'string' },
  profile: { type: 'string' },
  width: { type: 'string' },
  height: { type: 'string' },
  'max-idle': { type: 'string' },
  token: { type: 'string' },
  wait: { type: 'boolean' },
  timeout: { type: 'string' },
  sid: { type: 'string' },
  resource: { type: 'string' },
  audio: { type: 'string' },
  video: { type: 'string' },
  onhold: { type: 'string' },
  interval: { type: 'string' },
  status: { type: 'string' },
  limit: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parse>['values'];

function parse(args: readonly string[]) {
  try {
    return parseArgs({ args: [...args], options: OPTIONS, strict: true, allowPositionals: true });
  } catch (e) {
    throw new UsageError(`${(e as Error).message}\n${USAGE}`);
  }
}

const usage = (message: string) => new UsageError(`${message}\n${USAGE}`);

function number(name: string, v: string | undefined, fallback: number, min: number, max: number): number {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n < min || n > max) throw usage(`--${name} must be a number from ${min} to ${max}`);
  return n;
}

function mode(v: string | undefined): RecordingMode {
  const m = v ?? 'individual';
  if (m !== 'individual' && m !== 'mix' && m !== 'web') throw usage('--mode must be individual, mix or web');
  return m;
}

function uidList(name: string, v: string): string[] {
  if (v === 'all') return ['#allstream#'];
  const uids = v.split(',').map((u) => u.trim());
  if (uids.some((u) => !/^\d+$/.test(u))) throw usage(`--${name} must be uids separated by commas, or "all"`);
  return uids;
}

interface Context {
  readonly values: Values;
  readonly client: RecordingClient;
  readonly server: string;
  readonly appId: string;
  readonly appCertificate: string;
  readonly dataDir: string;
  readonly json: boolean;
  readonly out: (line: string) => void;
}

function context(values: Values): Context {
  const config = loadConfig();
  const server = values.server ?? config.publicUrl;
  const appId = values['app-id'] ?? config.appId;
  const client = new RecordingClient({
    baseUrl: server,
    appId,
    customerId: values['customer-id'] ?? config.customerId,
    customerSecret: values['customer-secret'] ?? config.customerSecret,
    // reeltime does not move sessions between servers: a 404 on query is final, shown at once.
    retry: { queryNotFoundMs: [] },
    onRetry: (r) => process.stderr.write(`${r.operation}: ${r.error.message}; retrying in ${r.delayMs / 1000} s\n`),
  });
  return {
    values,
    client,
    server,
    appId,
    appCertificate: config.appCertificate,
    dataDir: config.dataDir,
    json: values.json === true,
    out: (line) => void process.stdout.write(`${line}\n`),
  };
}

/** The session a command acts on: named fully by flags, or a saved one. */
function session(ctx: Context): SavedSession {
  const v = ctx.values;
  if (v.resource !== undefined) {
    if (!v.sid || !v.channel || !v.uid) throw usage('--resource needs --sid, --mode, --channel and --uid');
    return { server: ctx.server, appId: ctx.appId, cname: v.channel, uid: v.uid, mode: mode(v.mode), resourceId: v.resource, sid: v.sid, bucket: v.bucket ?? 'reeltime', startedAt: Date.now() };
  }
  const saved = findSavedSession(ctx.dataDir, v.sid);
  if (!saved) throw usage(v.sid ? `no saved session with sid ${v.sid} (name it with --resource …)` : 'no session started yet from this data dir');
  return saved;
}

function view(s: SavedSession, q: QueryResponse, uploaded: SessionUploads | undefined) {
  return { cname: s.cname, sid: s.sid, mode: s.mode, status: q.serverResponse.status, files: fileNames(q.serverResponse).length, elapsedMs: Date.now() - s.startedAt, uploaded };
}

/** The sessions API's upload totals; undefined from a server without it (the hosted service). */
async function uploadsOf(ctx: Context, sid: string): Promise<SessionUploads | undefined> {
  try {
    return (await ctx.client.getSession(sid)).uploads;
  } catch {
    return undefined;
  }
}

type SessionUploads = SessionDetailResponse['uploads'];

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
async function poll(ctx: Context, s: SavedSession, intervalMs: number, until: (q: QueryResponse) => boolean, deadline = Infinity) {
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

async function start(ctx: Context): Promise<number> {
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

async function query(ctx: Context): Promise<number> {
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

async function update(ctx: Context): Promise<number> {
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

async function stop(ctx: Context): Promise<number> {
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

/**
 * The links the sessions API hands out per file (signed and expiring in production, where an unsigned bucket URL is
 * refused); empty from a server without that API or whose files are not in its local bucket.
 */
async function playbackUrls(ctx: Context, sid: string): Promise<Map<string, string>> {
  try {
    return new Map((await ctx.client.getSession(sid)).files.flatMap((f) => (f.url ? [[f.fileName, f.url] as const] : [])));
  } catch {
    return new Map();
  }
}

async function watch(ctx: Context): Promise<number> {
  const s = session(ctx);
  const intervalMs = number('interval', ctx.values.interval, 2, 0.1, 3600) * 1000;
  const q = await poll(ctx, s, intervalMs, () => false);
  if (!q && !ctx.json) ctx.out(`session ${s.sid} has ended`);
  return 0;
}

async function list(ctx: Context): Promise<number> {
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

async function files(ctx: Context): Promise<number> {
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

const SUBCOMMANDS: Readonly<Record<string, (ctx: Context) => Promise<number>>> = { start, query, update, stop, watch, list, files };

export const record: CommandRunner = {
  async run(args) {
    const { values, positionals } = parse(args);
    const [name, ...extra] = positionals;
    if (values.help || name === undefined) {
      process.stdout.write(`${USAGE}\n`);
      return name === undefined && !values.help ? 2 : 0;
    }
    const sub = SUBCOMMANDS[name];
    if (!sub) throw usage(`unknown record command "${name}"`);
    if (extra.length > 0) throw usage(`unexpected argument "${extra[0]}"`);
    try {
      return await sub(context(values));
    } catch (e) {
      if (e instanceof RecordingError || (e instanceof Error && !(e instanceof UsageError) && /fetch failed|not recording/.test(e.message))) {
        process.stderr.write(`reeltime record ${name}: ${e.message}\n`);
        return 1;
      }
      throw e;
    }
  },
};
