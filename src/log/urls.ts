/** A URL for logs: scheme, host and path only (query strings and userinfo may carry tokens). */
export function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}

const REDACTED = '[redacted]';

/**
 * An RTMP push URL for logs: as `safeUrl`, and the last path segment (the stream key, which grants publishing to
 * the CDN) replaced: `rtmp://live.example.com/app/[redacted]`.
 */
export function safeStreamUrl(url: string): string {
  const safe = safeUrl(url);
  if (safe === '(invalid URL)') return safe;
  const slash = safe.indexOf('/', safe.indexOf('//') + 2);
  if (slash < 0 || slash === safe.length - 1) return safe;
  return `${safe.slice(0, safe.lastIndexOf('/') + 1)}${REDACTED}`;
}

/**
 * `text` (a child's error line) with every appearance of the push URL `url` and of its stream key replaced, so an
 * error that quotes its target can be logged.
 */
export function redactStreamUrlIn(text: string, url: string): string {
  let out = text.split(url).join(safeStreamUrl(url));
  let key = '';
  try {
    key = new URL(url).pathname.split('/').at(-1) ?? '';
  } catch {
    key = url.split('/').at(-1) ?? '';
  }
  for (const k of new Set([key, safeDecode(key)])) {
    if (k.length >= 4) out = out.split(k).join(REDACTED);
  }
  return out;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
