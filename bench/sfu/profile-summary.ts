// Where a V8 CPU profile's time goes: self time by function and by package or file, idle left out.
// Usage: node --import tsx bench/sfu/profile-summary.ts <file.cpuprofile> [top]
import { readFileSync } from 'node:fs';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
}
interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

const [file, topText] = process.argv.slice(2);
if (!file) throw new Error('usage: profile-summary.ts <file.cpuprofile> [top]');
const top = Number(topText ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));

/** A package name for node_modules code, the path for ours, node's own module otherwise. */
const where = (url: string): string => {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1]!;
  return url.replace(/^file:\/\/.*?\/(src|bench)\//, '$1/') || '(native)';
};
const byFunction = new Map<string, number>();
const byPlace = new Map<string, number>();
let busy = 0;
for (const [id, us] of selfUs) {
  const f = byId.get(id)!.callFrame;
  if (f.functionName === '(idle)') continue;
  busy += us;
  const place = where(f.url);
  const fn = `${f.functionName || '(anonymous)'} ${place}:${f.lineNumber + 1}`;
  byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
  byPlace.set(place, (byPlace.get(place) ?? 0) + us);
}
const print = (title: string, m: Map<string, number>) => {
  console.log(title);
  for (const [k, us] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${((us / busy) * 100).toFixed(1).padStart(5)} %  ${k}`);
};
console.log(`busy ${(busy / 1000).toFixed(0)} ms of the profile`);
print('by function (self time):', byFunction);
print('by package or file:', byPlace);
