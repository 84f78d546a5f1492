import { ChannelError } from '../errors.ts';
import { PROFILES, type Profile } from '../membership/index.ts';
import { VIEWER_LAYERS, type ViewerLayer } from '../webrtc/index.ts';

/** Agora's channel-name alphabet, at most 64 bytes. */
const CNAME = /^[A-Za-z0-9 !#$%&()+\-:;<=.>?@[\]^_{|}~,]{1,64}$/;

export function parseCname(raw: string | undefined): string {
  if (raw === undefined || !CNAME.test(raw)) {
    throw new ChannelError(
      'bad_channel',
      'cname must be 1-64 characters of letters, digits, space and !#$%&()+-:;<=.>?@[]^_{|}~,',
    );
  }
  return raw;
}

/** A uid is a decimal integer 1..2^32-1 (0 means "let the server pick" in Agora; WHIP needs an explicit one). */
export function parseUid(raw: unknown, field = 'uid'): number {
  if (typeof raw !== 'string' || !/^[0-9]{1,10}$/.test(raw)) {
    throw new ChannelError('bad_uid', `${field} must be a decimal integer between 1 and 4294967295`);
  }
  const n = Number(raw);
  if (n < 1 || n > 0xffffffff) {
    throw new ChannelError('bad_uid', `${field} must be a decimal integer between 1 and 4294967295`);
  }
  return n;
}

/**
 * A WHEP viewer's simulcast layer (`layer` in the query): `auto`, the layer its link carries, unless it pins one
 * (docs/channel.md, "Simulcast").
 */
export function parseLayer(raw: unknown): ViewerLayer {
  if (raw === undefined || raw === '') return 'auto';
  if (typeof raw === 'string' && (VIEWER_LAYERS as readonly string[]).includes(raw)) return raw as ViewerLayer;
  throw new ChannelError('bad_layer', 'layer must be "auto", "high" or "low"');
}

export function parseProfile(raw: unknown): Profile {
  if (raw === undefined || raw === '') return 'communication';
  if (typeof raw === 'string' && (PROFILES as readonly string[]).includes(raw)) return raw as Profile;
  throw new ChannelError('bad_profile', 'profile must be "communication" or "live"');
}
