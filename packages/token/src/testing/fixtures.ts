// Shared fixtures for the token tests: the test credentials and helpers that re-wrap hand-made payloads.
import { deflateSync, inflateSync } from 'node:zlib';

export const APP_ID = '970CA35de60c44645bbae8a215061b33';
export const CERT = '5CFd2fd1755d40ecb72977518be15d3b';
export const ISSUE = 1_700_000_000;

/** The inflated payload of a token (no validation: tests use it on good tokens). */
export function payloadOf(token: string): Buffer {
  return inflateSync(Buffer.from(token.slice(3), 'base64'));
}

/** Wraps a payload as a token again ('007' + Base64(zlib(payload))), without re-signing. */
export function wrap(payload: Uint8Array, level = 6): string {
  return '007' + deflateSync(payload, { level }).toString('base64');
}
