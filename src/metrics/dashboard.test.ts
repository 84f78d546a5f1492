// docs/grafana/reeltime-dashboard.json is valid JSON, and every metric its queries name is one a reeltime with all
// roles exposes on /metrics (histogram series by their _bucket, _sum and _count names).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { startTestServer } from '../testing/index.ts';
import { scrape } from './testing.ts';

const DASHBOARD = new URL('../../docs/grafana/reeltime-dashboard.json', import.meta.url);

interface Panel {
  readonly title?: string;
  readonly targets?: readonly { readonly expr?: string }[];
  readonly panels?: readonly Panel[];
}

function exprs(panels: readonly Panel[]): { title: string; expr: string }[] {
  return panels.flatMap((p) => [
    ...(p.targets ?? []).flatMap((t) => (t.expr ? [{ title: p.title ?? '', expr: t.expr }] : [])),
    ...exprs(p.panels ?? []),
  ]);
}

test('the Grafana dashboard is valid JSON and every query names a metric that exists', async () => {
  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: Panel[]; templating: { list: { query?: unknown }[] } };
  const queries = exprs(dashboard.panels);
  for (const v of dashboard.templating.list) {
    const q = typeof v.query === 'object' && v.query ? (v.query as { query?: string }).query : undefined;
    if (q?.startsWith('label_values(')) queries.push({ title: 'variable', expr: q });
  }
  assert.ok(queries.length >= 20, `${queries.length} queries`);

  const s = await startTestServer();
  try {
    const { types } = await scrape(s.url);
    const exists = (name: string): boolean => {
      if (types.has(name)) return true;
      const base = name.replace(/_(bucket|sum|count)$/, '');
      return base !== name && (types.get(base) === 'histogram' || types.get(base) === 'summary');
    };
    const used = new Set<string>();
    for (const { title, expr } of queries) {
      const names = [...expr.matchAll(/\b((?:reeltime|process|nodejs)_[a-z0-9_]+)\b/g)].map((m) => m[1]!);
      assert.ok(names.length > 0, `${title}: ${expr} names no metric`);
      for (const n of names) {
        assert.ok(exists(n), `${title}: ${n} is not on /metrics`);
        used.add(n.replace(/_(bucket|sum|count)$/, ''));
      }
    }
    // Every reeltime metric is on the dashboard somewhere.
    const unused = [...types.keys()].filter((n) => n.startsWith('reeltime_') && !used.has(n));
    assert.deepEqual(unused, []);
  } finally {
    await s.close();
  }
});
