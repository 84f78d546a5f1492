import { RTCPeerConnection, useH264, useNACK, useOPUS, usePLI, useVP8 } from 'werift';
import { loopbackClientConfig } from '../peer-config.ts';
import { sharedLoopbackStun } from './loopback-stun.ts';

export type VideoCodecName = 'vp8' | 'h264';

/** A werift client peer that only ever talks over loopback. */
export async function loopbackPeer(opts: { stunUrl?: string; videoCodecs?: readonly VideoCodecName[] } = {}): Promise<RTCPeerConnection> {
  const stunUrl = opts.stunUrl ?? (await sharedLoopbackStun()).url;
  const fb = () => [useNACK(), usePLI()];
  const video = (opts.videoCodecs ?? ['vp8', 'h264']).map((c) =>
    c === 'vp8' ? useVP8({ rtcpFeedback: fb() }) : useH264({ rtcpFeedback: fb() }),
  );
  return new RTCPeerConnection(loopbackClientConfig(stunUrl, { codecs: { audio: [useOPUS()], video } }));
}

/** Creates the offer and waits for gathering, so the POSTed offer carries its candidates (no trickle needed). */
export async function completeOffer(pc: RTCPeerConnection): Promise<string> {
  await pc.setLocalDescription(await pc.createOffer());
  if (pc.iceGatheringState !== 'complete') {
    await new Promise<void>((resolve) => {
      const { unSubscribe } = pc.iceGatheringStateChange.subscribe((s) => {
        if (s === 'complete') {
          unSubscribe();
          resolve();
        }
      });
    });
  }
  return pc.localDescription!.sdp;
}

/** Resolves when the peer is connected; rejects on failure or after `timeoutMs`. */
export function connected(pc: RTCPeerConnection, timeoutMs = 20000): Promise<void> {
  if (pc.connectionState === 'connected') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      unSubscribe();
      reject(new Error(`peer did not connect within ${timeoutMs} ms (state ${pc.connectionState})`));
    }, timeoutMs);
    const { unSubscribe } = pc.connectionStateChange.subscribe((s) => {
      if (s === 'connected' || s === 'failed' || s === 'closed') {
        clearTimeout(timer);
        unSubscribe();
        if (s === 'connected') resolve();
        else reject(new Error(`peer connection ${s}`));
      }
    });
  });
}
