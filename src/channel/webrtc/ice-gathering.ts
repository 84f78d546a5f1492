import type { RTCPeerConnection } from 'werift';

/** Resolves once the peer has gathered all its candidates, so its SDP is complete (no trickle needed). */
export async function gatheringComplete(pc: RTCPeerConnection): Promise<void> {
  if (pc.iceGatheringState === 'complete') return;
  await new Promise<void>((resolve) => {
    const { unSubscribe } = pc.iceGatheringStateChange.subscribe((s) => {
      if (s === 'complete') {
        unSubscribe();
        resolve();
      }
    });
  });
}
