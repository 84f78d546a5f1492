// What every `reeltime record` subcommand shares: the usage text, the flags, the client and the session acted on.
import { parseArgs } from 'node:util';
import { RecordingClient, type RecordingMode } from '@reeltime/client';
import { loadConfig } from '../../../server/config.ts';
import { UsageError } from '../../command.ts';
import { findSavedSession, type SavedSession } from '../../record/index.ts';

export const USAGE = `usage: reeltime record <command> [options]

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

export type Values = ReturnType<typeof parse>['values'];

export function parse(args: readonly string[]) {
  try {
    return parseArgs({ args: [...args], options: OPTIONS, strict: true, allowPositionals: true });
  } catch (e) {
    throw new UsageError(`${(e as Error).message}\n${USAGE}`);
  }
}

export const usage = (message: string) => new UsageError(`${message}\n${USAGE}`);

export function number(name: string, v: string | undefined, fallback: number, min: number, max: number): number {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n < min || n > max) throw usage(`--${name} must be a number from ${min} to ${max}`);
  return n;
}

export function mode(v: string | undefined): RecordingMode {
  const m = v ?? 'individual';
  if (m !== 'individual' && m !== 'mix' && m !== 'web') throw usage('--mode must be individual, mix or web');
  return m;
}

export function uidList(name: string, v: string): string[] {
  if (v === 'all') return ['#allstream#'];
  const uids = v.split(',').map((u) => u.trim());
  if (uids.some((u) => !/^\d+$/.test(u))) throw usage(`--${name} must be uids separated by commas, or "all"`);
  return uids;
}

export interface Context {
  readonly values: Values;
  readonly client: RecordingClient;
  readonly server: string;
  readonly appId: string;
  readonly appCertificate: string;
  readonly dataDir: string;
  readonly json: boolean;
  readonly out: (line: string) => void;
}

export function context(values: Values): Context {
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
export function session(ctx: Context): SavedSession {
  const v = ctx.values;
  if (v.resource !== undefined) {
    if (!v.sid || !v.channel || !v.uid) throw usage('--resource needs --sid, --mode, --channel and --uid');
    return { server: ctx.server, appId: ctx.appId, cname: v.channel, uid: v.uid, mode: mode(v.mode), resourceId: v.resource, sid: v.sid, bucket: v.bucket ?? 'reeltime', startedAt: Date.now() };
  }
  const saved = findSavedSession(ctx.dataDir, v.sid);
  if (!saved) throw usage(v.sid ? `no saved session with sid ${v.sid} (name it with --resource …)` : 'no session started yet from this data dir');
  return saved;
}
