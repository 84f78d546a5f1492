/**
 * A Java `.properties` reader (the format the sample token server is configured with): `key=value`,
 * `key:value` or `key value`; `#`/`!` comments; a trailing backslash continues the line; `\t \n \r \f \uXXXX`
 * escapes; later keys win.
 */
export function parseProperties(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  for (let i = 0; i < lines.length; i++) {
    let line = (lines[i] ?? '').replace(/^[ \t\f]+/, '');
    if (line === '' || line.startsWith('#') || line.startsWith('!')) continue;
    while (endsWithOddBackslashes(line) && i + 1 < lines.length) {
      line = line.slice(0, -1) + (lines[++i] ?? '').replace(/^[ \t\f]+/, '');
    }
    if (endsWithOddBackslashes(line)) line = line.slice(0, -1);
    const { key, rest } = splitKey(line);
    out.set(unescapeValue(key), unescapeValue(rest));
  }
  return out;
}

function endsWithOddBackslashes(s: string): boolean {
  let n = 0;
  for (let i = s.length - 1; i >= 0 && s[i] === '\\'; i--) n++;
  return n % 2 === 1;
}

function splitKey(line: string): { key: string; rest: string } {
  let i = 0;
  while (i < line.length) {
    const c = line[i];
    if (c === '\\') {
      i += 2;
      continue;
    }
    if (c === '=' || c === ':' || c === ' ' || c === '\t' || c === '\f') break;
    i++;
  }
  const key = line.slice(0, i);
  let j = i;
  while (j < line.length && (line[j] === ' ' || line[j] === '\t' || line[j] === '\f')) j++;
  if (j < line.length && (line[j] === '=' || line[j] === ':')) j++;
  while (j < line.length && (line[j] === ' ' || line[j] === '\t' || line[j] === '\f')) j++;
  return { key, rest: line.slice(j) };
}

const SIMPLE: Record<string, string> = { t: '\t', n: '\n', r: '\r', f: '\f' };

function unescapeValue(s: string): string {
  return s.replace(/\\(u[0-9a-fA-F]{4}|.)/g, (_m, e: string) => {
    if (e.length === 5) return String.fromCharCode(parseInt(e.slice(1), 16));
    return SIMPLE[e] ?? e;
  });
}
