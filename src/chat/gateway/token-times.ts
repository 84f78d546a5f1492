/** Share of a token's lifetime after which the client is told it will expire. */
export const WILL_EXPIRE_AT = 0.8;

/**
 * When to warn and when to end a session for a token issued at `issueTs` and valid until `expiresAt`
 * (unix seconds): the warning comes once 80 % of the token's lifetime has passed.
 */
export function tokenTimes(issueTs: number, expiresAt: number, nowMs: number): { willExpireIn: number; expiresIn: number } {
  const lifetimeMs = Math.max(0, expiresAt - issueTs) * 1000;
  const warnAt = issueTs * 1000 + Math.floor(lifetimeMs * WILL_EXPIRE_AT);
  return { willExpireIn: warnAt - nowMs, expiresIn: Math.max(0, expiresAt * 1000 - nowMs) };
}
