// Constants of the AccessToken2 wire format shared by the encoder and the parser.

export const VERSION = '007';
/** Inflated payload cap: the parser refuses more (zip-bomb guard), so the builder never makes more. */
export const MAX_PAYLOAD_BYTES = 64 * 1024;
/** HMAC-SHA256 length. */
export const SIGNATURE_BYTES = 32;
