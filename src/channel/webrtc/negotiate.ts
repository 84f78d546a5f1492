import type { RTCPeerConnection } from 'werift';
import { tolerateRepeatedHelloVerify } from './dtls-guard.ts';
import { ChannelError } from '../errors.ts';
import { gatheringComplete } from './ice-gathering.ts';
import { keepCandidates } from './sdp.ts';

/** Applies an offer and returns the full (non-trickle) answer, with candidates only on `addresses`. */
export async function answerOffer(pc: RTCPeerConnection, offer: string, addresses: readonly string[]): Promise<string> {
  try {
    await pc.setRemoteDescription({ type: 'offer', sdp: offer });
    const answer = await pc.createAnswer();
    await pc.setLocalDescription(answer);
    tolerateRepeatedHelloVerify(pc);
  } catch (e) {
    throw new ChannelError('negotiation_failed', `the offer could not be negotiated: ${(e as Error).message}`);
  }
  await gatheringComplete(pc);
  const sdp = pc.localDescription?.sdp;
  if (!sdp) throw new ChannelError('negotiation_failed', 'no answer was produced');
  return keepCandidates(sdp, addresses);
}
