/**
 * Named string formats of the request tables (JSON Schema `format`), each with its test and the rule text an error
 * shows. A JSON Schema reader sees the name; docs/validation.md lists what each one accepts.
 */

const MAX_UID = 4294967295;

/** The wildcard of a subscription list that names every user of the channel (docs/recording-api.md). */
export const ALL_STREAMS = '#allstream#';

const UID_RULE = 'must be integer text between 1 and 4294967295';

function isUid(v: string): boolean {
  return /^[1-9][0-9]{0,9}$/.test(v) && Number(v) <= MAX_UID;
}

function isUrlOf(scheme: 'http' | 'rtmp', v: string): boolean {
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    return false;
  }
  return u.protocol === `${scheme}:` || u.protocol === `${scheme}s:`;
}

export interface Format {
  readonly test: (v: string) => boolean;
  readonly rule: string;
}

export const FORMATS = Object.freeze({
  /** A uid: integer text 1..2^32-1, no sign, no leading zero, never 0. */
  uid: { test: isUid, rule: UID_RULE },
  /** A subscription list entry: a uid or the wildcard (alone in its list: a cross-field rule). */
  'subscription-uid': { test: (v: string) => v === ALL_STREAMS || isUid(v), rule: UID_RULE },
  /** A uid of a layout entry: 32-bit unsigned integer text, 0 allowed (it never names a real user). */
  uint32: {
    test: (v: string) => /^(0|[1-9][0-9]{0,9})$/.test(v) && Number(v) <= MAX_UID,
    rule: 'must be integer text between 0 and 4294967295',
  },
  'http-url': { test: (v: string) => isUrlOf('http', v), rule: 'must be an http or https URL' },
  'rtmp-url': { test: (v: string) => isUrlOf('rtmp', v), rule: 'must be an rtmp or rtmps URL' },
} satisfies Record<string, Format>);

export type FormatName = keyof typeof FORMATS;
