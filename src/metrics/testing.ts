// Test helpers: read a Prometheus text exposition the way a scraper does.

export interface Series {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface Exposition {
  /** Metric families by `# TYPE` line: name → counter, gauge, histogram, … */
  readonly types: ReadonlyMap<string, string>;
  readonly series: readonly Series[];
  /** Sum of the series of `name` whose labels include `labels`. */
  sum(name: string, labels?: Readonly<Record<string, string>>): number;
}

export function parseExposition(text: string): Exposition {
  const types = new Map<string, string>();
  const series: Series[] = [];
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) types.set(type[1]!, type[2]!);
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    series.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return {
    types,
    series,
    sum: (name, want = {}) =>
      series.filter((s) => s.name === name && Object.entries(want).every(([k, v]) => s.labels[k] === v)).reduce((a, s) => a + s.value, 0),
  };
}

export async function scrape(baseUrl: string, headers: Record<string, string> = {}): Promise<Exposition> {
  const res = await fetch(`${baseUrl}/metrics`, { headers });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET /metrics: HTTP ${res.status} ${text}`);
  if (!(res.headers.get('content-type') ?? '').startsWith('text/plain')) throw new Error(`content-type ${res.headers.get('content-type')}`);
  return parseExposition(text);
}
