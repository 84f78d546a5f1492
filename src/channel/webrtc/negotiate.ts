import type { RTCPeerConnection } from 'werift';
import { guardDtlsHandshake } from './dtls-guard.ts';
import { guardIceLiteChecks } from './ice-checks.ts';
import { ChannelError } from '../errors.ts';
import { gatheringComplete } from './ice-gathering.ts';
import { keepCandidates, offsetCandidatePorts } from './sdp.ts';

/**
 * Applies an offer and returns the full (non-trickle) answer, with candidates only on `addresses`, their ports
 * shifted by `portOffset` (channel.icePortOffset).
 */
export async function answerOffer(pc: RTCPeerConnection, offer: string, addresses: readonly string[], portOffset = 0): Promise<string> {
  try {
    await pc.setRemoteDescription({ type: 'offer', sdp: offer });
    const answer = await pc.createAnswer();
    await pc.setLocalDescription(answer);
    guardDtlsHandshake(pc);
  } catch (e) {
    throw new ChannelError('negotiation_failed', `the offer could not be negotiated: ${(e as Error).message}`);
  }
  await gatheringComplete(pc);
  guardIceLiteChecks(pc);
  const sdp = pc.localDescription?.sdp;
  if (!sdp) throw new ChannelError('negotiation_failed', 'no answer was produced');
  return offsetCandidatePorts(keepCandidates(sdp, addresses), portOffset);
}
