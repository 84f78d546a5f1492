import { fail, str, type Check } from './schema.ts';

const MAX_UID = 4294967295;

/** A uid: integer text 1..2^32-1, no sign, no leading zero, never 0. */
export const uidText: Check<string> = str({
  refine(v, path) {
    if (!/^[1-9][0-9]{0,9}$/.test(v) || Number(v) > MAX_UID) {
      fail(path, 'must be integer text between 1 and 4294967295');
    }
  },
});

/** The wildcard of a subscription list that names every user of the channel (docs/recording-api.md). */
export const ALL_STREAMS = '#allstream#';

/** An entry of a subscribe/unsubscribe list: a uid, or the wildcard (alone; see allStreamsAlone in rules.ts). */
export const subscriptionUid: Check<string> = (v, path) => (v === ALL_STREAMS ? ALL_STREAMS : uidText(v, path));

/** A uid in a layout entry: 32-bit unsigned integer text (0 allowed there: it never names a real user). */
export const uint32Text: Check<string> = str({
  refine(v, path) {
    if (!/^(0|[1-9][0-9]{0,9})$/.test(v) || Number(v) > MAX_UID) {
      fail(path, 'must be integer text between 0 and 4294967295');
    }
  },
});

/** cname: 1..1024 bytes (spec); the character set is the RTC channel-name set (docs/recording-api.md, validation). */
export const cnameText: Check<string> = str({
  minLength: 1,
  maxBytes: 1024,
  pattern: [
    /^[a-zA-Z0-9 !#$%&()+\-:;<=.>?@[\]^_{}|~,]+$/,
    'must use only a-z, A-Z, 0-9, space and !#$%&()+-:;<=.>?@[]^_{}|~,',
  ],
});

/** A URL of at most 2048 characters whose scheme is `scheme` or its TLS form (`scheme` + "s"). */
function urlOf(scheme: 'http' | 'rtmp'): Check<string> {
  const rule = `must be an ${scheme} or ${scheme}s URL`;
  return str({
    maxLength: 2048,
    refine(v, path) {
      let u: URL;
      try {
        u = new URL(v);
      } catch {
        return fail(path, rule);
      }
      if (u.protocol !== `${scheme}:` && u.protocol !== `${scheme}s:`) fail(path, rule);
    },
  });
}

export const httpUrl: Check<string> = urlOf('http');
export const rtmpUrl: Check<string> = urlOf('rtmp');

export const hexColor: Check<string> = str({ pattern: [/^#[0-9a-fA-F]{6}$/, 'must be # followed by 6 hex digits'] });

/** At most this many pixels for any output (mix canvas, web page). */
export const MAX_PIXELS = 1920 * 1080;
