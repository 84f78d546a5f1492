/** Outcome of one call to the chat users REST API. */
export type RestOutcome =
  | { readonly kind: 'ok'; readonly uuid: string }
  | { readonly kind: 'http'; readonly status: number; readonly error: string; readonly description: string }
  | { readonly kind: 'unreachable'; readonly message: string };

export const REST_TIMEOUT_MS = 10_000;

/** `example.com` or `127.0.0.1:8080` → `http://...` (the sample always prefixes http://); URLs are kept. */
export function restBase(domain: string, org: string, app: string): string {
  const base = /^https?:\/\//i.test(domain) ? domain : `http://${domain}`;
  return `${base.replace(/\/+$/, '')}/${encodeURIComponent(org)}/${encodeURIComponent(app)}`;
}

async function call(url: string, init: RequestInit): Promise<RestOutcome> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, signal: AbortSignal.timeout(REST_TIMEOUT_MS) });
  } catch (e) {
    const cause = (e as { cause?: { code?: string } }).cause?.code;
    return { kind: 'unreachable', message: cause ?? (e as Error).name ?? 'network error' };
  }
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    body = undefined;
  }
  const o = (body ?? {}) as { entities?: { uuid?: unknown }[]; error?: unknown; error_description?: unknown };
  if (res.ok) {
    const uuid = o.entities?.[0]?.uuid;
    if (typeof uuid === 'string' && uuid !== '') return { kind: 'ok', uuid };
    return { kind: 'http', status: res.status, error: 'bad_response', description: 'response has no entities[0].uuid' };
  }
  return {
    kind: 'http',
    status: res.status,
    error: typeof o.error === 'string' ? o.error : '',
    description: typeof o.error_description === 'string' ? o.error_description : res.statusText,
  };
}

/** The two chat REST calls the token server makes, with an app token as Bearer. */
export class ChatRestClient {
  constructor(private readonly base: string) {}

  getUser(username: string, appToken: string): Promise<RestOutcome> {
    return call(`${this.base}/users/${encodeURIComponent(username)}`, {
      headers: { accept: 'application/json', authorization: `Bearer ${appToken}` },
    });
  }

  registerUser(username: string, password: string, appToken: string): Promise<RestOutcome> {
    return call(`${this.base}/users`, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json', authorization: `Bearer ${appToken}` },
      body: JSON.stringify({ username, password }),
    });
  }
}
