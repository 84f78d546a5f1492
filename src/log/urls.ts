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
