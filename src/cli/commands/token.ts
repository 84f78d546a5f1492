// `reeltime token chat-app | chat-user | rtc | inspect`: build or inspect AccessToken2 tokens from the shell.
import { parseArgs } from 'node:util';
import {
  buildAppToken,
  buildRtcTokenWithAccount,
  buildRtcTokenWithUid,
  buildUserToken,
  CHAT_TOKEN_MAX_VALIDITY_SECONDS,
  describeToken,
  HEX32,
  parseToken,
  RtcRole,
  type BuildOptions,
} from '@reeltime/token';
import { loadConfig } from '../../server/config.ts';
import { UsageError, type CommandRunner } from '../command.ts';

const USAGE = `usage:
  reeltime token chat-app  [--app-id A --app-certificate C] --expire S [--salt N --issue-ts T]
  reeltime token chat-user [--app-id A --app-certificate C] --uuid U --expire S [--salt N --issue-ts T]
  reeltime token rtc       [--app-id A --app-certificate C] --channel CH (--uid N | --account S)
                           --role publisher|subscriber --expire S [--privilege-expire S] [--salt N --issue-ts T]
  reeltime token inspect TOKEN [--app-certificate C] [--now UNIX]
App id and certificate default to the configured ones (appId, appCertificate).`;

const OPTIONS = {
  'app-id': { type: 'string' },
  'app-certificate': { type: 'string' },
  expire: { type: 'string' },
  'privilege-expire': { type: 'string' },
  salt: { type: 'string' },
  'issue-ts': { type: 'string' },
  uuid: { type: 'string' },
  channel: { type: 'string' },
  uid: { type: 'string' },
  account: { type: 'string' },
  role: { type: 'string' },
  now: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parse>['values'];

function parse(args: readonly string[]) {
  try {
    return parseArgs({ args: [...args], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError(`${(e as Error).message}\n${USAGE}`);
  }
}

/** A u32 flag (seconds, salt, uid): decimal digits only, so "1e3" or "-1" are refused with the flag's name. */
function u32(values: Values, flag: keyof Values, required: boolean): number | undefined {
  const raw = values[flag];
  if (raw === undefined) {
    if (required) throw new UsageError(`--${flag} is required\n${USAGE}`);
    return undefined;
  }
  if (typeof raw !== 'string' || !/^\d{1,10}$/.test(raw) || Number(raw) > 0xffffffff) {
    throw new UsageError(`--${flag} must be an integer from 0 to 4294967295, got "${String(raw)}"`);
  }
  return Number(raw);
}

/** Chat tokens live at most 24 hours (the spec); a longer one would be refused by every verifier. */
function chatExpire(values: Values): number {
  const expire = u32(values, 'expire', true)!;
  if (expire > CHAT_TOKEN_MAX_VALIDITY_SECONDS) {
    throw new UsageError(`--expire must be at most ${CHAT_TOKEN_MAX_VALIDITY_SECONDS} (24 hours, the chat token maximum), got ${expire}`);
  }
  return expire;
}

function required(values: Values, flag: 'uuid' | 'channel'): string {
  const v = values[flag];
  if (v === undefined) throw new UsageError(`--${flag} is required\n${USAGE}`);
  return v;
}

/** Flags first; the configuration only when a flag is absent (loading it may create dev credentials). */
function credentials(values: Values): { appId: string; appCertificate: string } {
  let appId = values['app-id'];
  let appCertificate = values['app-certificate'];
  if (appId === undefined || appCertificate === undefined) {
    const config = loadConfig();
    appId ??= config.appId;
    appCertificate ??= config.appCertificate;
  }
  if (!HEX32.test(appId)) throw new UsageError('--app-id must be 32 hexadecimal characters');
  if (!HEX32.test(appCertificate)) throw new UsageError('--app-certificate must be 32 hexadecimal characters');
  return { appId, appCertificate };
}

function buildOptions(values: Values): BuildOptions {
  const salt = u32(values, 'salt', false);
  const issueTs = u32(values, 'issue-ts', false);
  return { ...(salt !== undefined && { salt }), ...(issueTs !== undefined && { issueTs }) };
}

function role(values: Values): number {
  switch (values.role) {
    case 'publisher':
    case '1':
      return RtcRole.PUBLISHER;
    case 'subscriber':
    case '2':
      return RtcRole.SUBSCRIBER;
    case undefined:
      throw new UsageError(`--role is required (publisher or subscriber)\n${USAGE}`);
    default:
      throw new UsageError(`--role must be publisher or subscriber, got "${values.role}"`);
  }
}

function buildRtc(values: Values): string {
  const channel = required(values, 'channel');
  const r = role(values);
  const expire = u32(values, 'expire', true)!;
  const privilegeExpire = u32(values, 'privilege-expire', false) ?? expire;
  const opts = buildOptions(values);
  if ((values.uid === undefined) === (values.account === undefined)) {
    throw new UsageError('give exactly one of --uid (number, 0 = any user) and --account (string)');
  }
  const { appId, appCertificate } = credentials(values);
  if (values.uid !== undefined) {
    const uid = u32(values, 'uid', true)!;
    return buildRtcTokenWithUid(appId, appCertificate, channel, uid, r, expire, privilegeExpire, opts);
  }
  return buildRtcTokenWithAccount(appId, appCertificate, channel, values.account!, r, expire, privilegeExpire, opts);
}

/** The configured certificate is used only for a token of the configured app; config errors leave it unchecked. */
function inspectCertificate(values: Values, tokenAppId: string): string | undefined {
  if (values['app-certificate'] !== undefined) return values['app-certificate'];
  try {
    const config = loadConfig();
    return config.appId.toLowerCase() === tokenAppId.toLowerCase() ? config.appCertificate : undefined;
  } catch {
    return undefined;
  }
}

function inspect(values: Values, positionals: readonly string[]): number {
  const [raw, ...extra] = positionals;
  // Pasted tokens often carry a newline or spaces; the token alphabet has none, so trimming is safe.
  const token = raw?.trim();
  if (token === undefined || extra.length > 0) throw new UsageError(`inspect takes exactly one TOKEN\n${USAGE}`);
  const now = u32(values, 'now', false);
  const parsed = parseToken(token);
  if (!parsed.ok) {
    process.stderr.write(`reeltime token inspect: ${parsed.reason}: ${parsed.message}\n`);
    return 1;
  }
  const appCertificate = inspectCertificate(values, parsed.token.appId);
  const d = describeToken(parsed.token, { ...(appCertificate !== undefined && { appCertificate }), ...(now !== undefined && { now }) });
  process.stdout.write(JSON.stringify(d, null, 2) + '\n');
  return 0;
}

function print(token: string): number {
  // Flags were validated, so '' means a field did not fit (e.g. a text longer than 65535 bytes).
  if (token === '') {
    process.stderr.write('reeltime token: could not build a token from these values\n');
    return 1;
  }
  process.stdout.write(token + '\n');
  return 0;
}

export const token: CommandRunner = {
  async run(args) {
    const [sub, ...rest] = args;
    const { values, positionals } = parse(rest);
    if (sub === undefined || sub === 'help' || sub === '--help' || sub === '-h' || values.help) {
      process.stdout.write(USAGE + '\n');
      return sub === undefined ? 2 : 0;
    }
    if (sub !== 'inspect' && positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"\n${USAGE}`);
    switch (sub) {
      case 'chat-app': {
        const expire = chatExpire(values);
        const opts = buildOptions(values);
        const { appId, appCertificate } = credentials(values);
        return print(buildAppToken(appId, appCertificate, expire, opts));
      }
      case 'chat-user': {
        const uuid = required(values, 'uuid');
        const expire = chatExpire(values);
        const opts = buildOptions(values);
        const { appId, appCertificate } = credentials(values);
        return print(buildUserToken(appId, appCertificate, uuid, expire, opts));
      }
      case 'rtc':
        return print(buildRtc(values));
      case 'inspect':
        return inspect(values, positionals);
      default:
        throw new UsageError(`unknown token command "${sub}"\n${USAGE}`);
    }
  },
};
