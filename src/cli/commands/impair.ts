// `reeltime impair`: the impairment relay (src/impairment) in front of a channel node, from the shell.
import { parseArgs } from 'node:util';
import { gilbertForBursts, startImpairmentRelay, type LinkImpairment, type RelayMapping, type RelayOptions } from '../../impairment/index.ts';
import { UsageError, type CommandRunner } from '../command.ts';

const USAGE = `usage: reeltime impair --listen HOST:PORT[-PORT] --target HOST:PORT[-PORT] [link flags] [--seed N] [--report S]
Relays UDP from each listen port to the matching target port, impaired. Link flags apply to both directions;
prefix one with up- (peer → target) or down- (target → peer) for one direction only (--up-loss 5):
  --loss PCT                  independent loss
  --burst-loss PCT --burst-length N   Gilbert–Elliott loss in bursts of mean N datagrams (default 3)
  --delay MS --jitter MS      one-way delay, uniform jitter ± MS (order kept)
  --reorder PCT --reorder-gap MS      share held back MS (default 20) so later datagrams overtake
  --duplicate PCT             share sent twice
  --rate KBIT [--burst-bytes B] [--queue-bytes B]   bandwidth cap (token bucket, default 15000 / 60000 bytes)
Point the channel node at the relay with channel.icePortOffset (docs/impairment.md).`;

const LINK_FLAGS = ['loss', 'burst-loss', 'burst-length', 'delay', 'jitter', 'reorder', 'reorder-gap', 'duplicate', 'rate', 'burst-bytes', 'queue-bytes'] as const;
type LinkFlag = (typeof LINK_FLAGS)[number];

const OPTIONS = {
  listen: { type: 'string' },
  target: { type: 'string' },
  seed: { type: 'string' },
  report: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  ...Object.fromEntries(LINK_FLAGS.flatMap((f) => [f, `up-${f}`, `down-${f}`].map((k) => [k, { type: 'string' }]))),
} as const;

function number(flag: string, raw: string, max: number): number {
  const v = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || v > max) throw new UsageError(`--${flag} must be a number from 0 to ${max}, got "${raw}"`);
  return v;
}

/** HOST:PORT or HOST:FIRST-LAST, as [host, first, count]. */
function endpoints(flag: string, raw: string | undefined): [string, number, number] {
  const m = raw === undefined ? null : /^(.+):(\d{1,5})(?:-(\d{1,5}))?$/.exec(raw);
  const first = Number(m?.[2]);
  const last = m?.[3] === undefined ? first : Number(m[3]);
  if (!m || first < 1 || last > 65535 || last < first) throw new UsageError(`--${flag} must be HOST:PORT or HOST:FIRST-LAST\n${USAGE}`);
  return [m[1]!.replace(/^\[|\]$/g, ''), first, last - first + 1];
}

/** One direction's link from the flags (`prefix` '' / 'up-' / 'down-'; a prefixed flag wins). */
function link(values: Readonly<Record<string, unknown>>, prefix: 'up-' | 'down-'): LinkImpairment {
  const get = (f: LinkFlag, max: number): number | undefined => {
    const flag = values[`${prefix}${f}`] === undefined ? f : `${prefix}${f}`;
    const raw = values[flag];
    return typeof raw === 'string' ? number(flag, raw, max) : undefined;
  };
  const pct = (f: LinkFlag) => {
    const v = get(f, 100);
    return v === undefined ? undefined : v / 100;
  };
  const burstLoss = pct('burst-loss');
  const rate = get('rate', 10_000_000);
  const out: LinkImpairment = {
    loss: pct('loss'),
    burst: burstLoss ? gilbertForBursts(burstLoss, Math.max(1, get('burst-length', 1000) ?? 3)) : undefined,
    delayMs: get('delay', 60_000),
    jitterMs: get('jitter', 60_000),
    reorder: pct('reorder'),
    reorderGapMs: get('reorder-gap', 60_000),
    duplicate: pct('duplicate'),
    rate: rate ? { bitsPerSecond: rate * 1000, burstBytes: get('burst-bytes', 1e9) ?? 15_000, queueBytes: get('queue-bytes', 1e9) ?? 60_000 } : undefined,
  };
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined)) as LinkImpairment;
}

/** The relay's options from the command line (pure: the test checks it without binding a port). */
export function parseImpairArgs(args: readonly string[]): RelayOptions & { readonly reportSeconds: number } {
  let values;
  try {
    ({ values } = parseArgs({ args: [...args], options: OPTIONS, strict: true }));
  } catch (e) {
    throw new UsageError(`${(e as Error).message}\n${USAGE}`);
  }
  const [lh, lp, lc] = endpoints('listen', values.listen);
  const [th, tp, tc] = endpoints('target', values.target);
  if (lc !== tc) throw new UsageError(`--listen and --target must have as many ports (${lc} vs ${tc})`);
  const mappings: RelayMapping[] = Array.from({ length: lc }, (_, i) => ({ listen: { address: lh, port: lp + i }, target: { address: th, port: tp + i } }));
  return {
    mappings,
    upstream: link(values, 'up-'),
    downstream: link(values, 'down-'),
    seed: values.seed === undefined ? 1 : number('seed', values.seed, 0xffffffff),
    reportSeconds: values.report === undefined ? 5 : Math.max(1, number('report', values.report, 3600)),
  };
}

export const impair: CommandRunner = {
  async run(args) {
    if (args.includes('--help') || args.includes('-h')) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    const opts = parseImpairArgs(args);
    const relay = await startImpairmentRelay(opts);
    const report = () => process.stdout.write(`${JSON.stringify(relay.counters)}\n`);
    process.stdout.write(`relaying ${opts.mappings.length} port(s): up ${JSON.stringify(opts.upstream)} down ${JSON.stringify(opts.downstream)}\n`);
    const timer = setInterval(report, opts.reportSeconds * 1000);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    clearInterval(timer);
    report();
    await relay.close();
    return 0;
  },
};
