/**
 * Short-lived TURN credentials in the scheme coturn checks with `use-auth-secret` (the "TURN REST API" draft,
 * draft-uberti-behave-turn-rest): the username is `<expiry unix seconds>:<user>`, the password is
 * base64(HMAC-SHA1(shared secret, username)). coturn refuses a username whose expiry has passed. Pure.
 */
import { createHmac } from 'node:crypto';

export interface TurnSettings {
  /** `turn:` / `turns:` URLs handed to clients, e.g. `turn:turn.example.com:3478?transport=udp`. */
  readonly urls: readonly string[];
  /** coturn's `static-auth-secret`. */
  readonly secret: string;
  /** How long handed-out credentials last (capped by the token's own expiry). */
  readonly credentialTtlSeconds: number;
}

/** One ICE server entry as RTCPeerConnection's `iceServers` takes it. */
export interface IceServer {
  readonly urls: readonly string[];
  readonly username: string;
  readonly credential: string;
}

export interface TurnGrant {
  /** Who the credentials are for (the uid); only a label in the username, coturn does not check it. */
  readonly user: string;
  readonly nowSec: number;
  /** The token's end (unix seconds), when it has one: credentials never outlive it. */
  readonly notAfterSec?: number | undefined;
}

export function turnCredentials(settings: TurnSettings, grant: TurnGrant): IceServer {
  let expiry = grant.nowSec + settings.credentialTtlSeconds;
  if (grant.notAfterSec !== undefined) expiry = Math.min(expiry, grant.notAfterSec);
  const username = `${expiry}:${grant.user}`;
  const credential = createHmac('sha1', settings.secret).update(username).digest('base64');
  return { urls: settings.urls, username, credential };
}

/** A quoted-string of RFC 9110: backslash and double quote escaped. */
const quoted = (s: string): string => `"${s.replace(/[\\"]/g, (c) => `\\${c}`)}"`;

/**
 * The `Link` header values of a WHIP/WHEP 201 (RFC 9725 §4.6): one per URL, with `rel="ice-server"`, the
 * username, the credential and `credential-type="password"`.
 */
export function iceServerLinks(server: IceServer): string[] {
  return server.urls.map(
    (url) => `<${url}>; rel="ice-server"; username=${quoted(server.username)}; credential=${quoted(server.credential)}; credential-type="password"`,
  );
}

/** Whether a configured URL is a TURN URL a browser accepts (RFC 7065): `turn:` or `turns:`, a host, an optional port and transport. */
export function isTurnUrl(url: string): boolean {
  return /^turns?:(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?(\?transport=(udp|tcp))?$/.test(url);
}
