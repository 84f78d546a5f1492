/** Field types shared by several tables, as TypeBox schemas. */
import { Type, type TUnsafe } from '@sinclair/typebox';

/** An enumeration of numbers or strings, as JSON Schema `enum` with its literal union as the static type. */
export function oneOf<const T extends readonly (number | string)[]>(values: T, options: Record<string, unknown> = {}): TUnsafe<T[number]> {
  const type = values.every((v) => typeof v === 'number') ? (values.every(Number.isInteger) ? 'integer' : 'number') : 'string';
  return Type.Unsafe<T[number]>({ ...options, type, enum: [...values] });
}

/** uid: integer text 1..4294967295 (acquire, start, update, stop; maxResolutionUid; backgroundConfig). */
export const Uid = Type.String({ format: 'uid', description: 'Integer text 1..4294967295, never 0.' });

/** An entry of a subscribe/unsubscribe list: a uid or `#allstream#` (every user). */
export const SubscriptionUid = Type.String({ format: 'subscription-uid', description: 'A uid, or "#allstream#" for every user.' });

/** A uid in a layout entry: 0 allowed. */
export const Uint32Text = Type.String({ format: 'uint32', description: 'Integer text 0..4294967295.' });

/** cname: 1..1024 bytes of the RTC channel-name characters (docs/recording-api.md, validation choices). */
export const Cname = Type.String({
  minLength: 1,
  'x-maxBytes': 1024,
  pattern: '^[a-zA-Z0-9 !#$%&()+\\-:;<=.>?@[\\]^_{}|~,]+$',
  'x-rule': 'must use only a-z, A-Z, 0-9, space and !#$%&()+-:;<=.>?@[]^_{}|~,',
});

const url = (format: 'http-url' | 'rtmp-url') => Type.String({ maxLength: 2048, format });
/** An http or https URL of at most 2048 characters. */
export const HttpUrl = url('http-url');
/** An rtmp or rtmps URL of at most 2048 characters. */
export const RtmpUrl = url('rtmp-url');

export const HexColor = Type.String({ pattern: '^#[0-9a-fA-F]{6}$', 'x-rule': 'must be # followed by 6 hex digits' });

/** At most this many pixels for any output (mix canvas, web page). */
export const MAX_PIXELS = 1920 * 1080;
