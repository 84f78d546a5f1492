import { networkInterfaces } from 'node:os';
import { useH264, useNACK, useOPUS, usePLI, useSdesMid, useVP8, type RTCPeerConnectionConfig } from 'werift';
import type { ChannelConfig } from '../config.ts';

/** Codecs the SFU negotiates; offers are first narrowed to one payload type per section (see sdp.ts). */
export function sfuCodecs(): NonNullable<RTCPeerConnectionConfig['codecs']> {
  return {
    audio: [useOPUS()],
    video: [
      useVP8({ rtcpFeedback: [useNACK(), usePLI()] }),
      useH264({ rtcpFeedback: [useNACK(), usePLI()] }),
    ],
  };
}

/**
 * Server peers: ICE-lite (no outgoing checks, no STUN lookups) and host candidates only on the configured
 * addresses (iceUseIpv4/6 off stops werift gathering every interface; the extra addresses are gathered instead).
 */
export function serverPeerConfig(cfg: ChannelConfig): RTCPeerConnectionConfig {
  // Bind to the announced address when it is ours, so replies always come from the address the peer was told
  // (a wildcard socket answers a check from another local interface with that interface's source address, which
  // Chromium then drops). A 1:1-NAT public address is not local: bind the wildcard then.
  const bind = cfg.iceAddresses.find((a) => localAddresses().has(a));
  return {
    ...(bind ? { iceInterfaceAddresses: { udp4: bind } } : {}),
    codecs: sfuCodecs(),
    headerExtensions: { audio: [useSdesMid()], video: [useSdesMid()] },
    iceLite: true,
    iceServers: [],
    iceUseIpv4: false,
    iceUseIpv6: false,
    iceAdditionalHostAddresses: [...cfg.iceAddresses],
    ...(cfg.udpPortRange ? { icePortRange: [cfg.udpPortRange[0], cfg.udpPortRange[1]] as [number, number] } : {}),
  };
}

function localAddresses(): Set<string> {
  return new Set(Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address)));
}

/** Client peers (publishers, subscribers in tests): loopback only, STUN pointed at a loopback responder. */
export function loopbackClientConfig(stunUrl: string, extra: RTCPeerConnectionConfig = {}): RTCPeerConnectionConfig {
  return {
    codecs: sfuCodecs(),
    headerExtensions: { audio: [useSdesMid()], video: [useSdesMid()] },
    iceServers: [{ urls: stunUrl }],
    // One transport from the start: with the default policy werift opens a socket per m-line and never closes
    // the ones BUNDLE makes redundant (they kept test processes alive).
    bundlePolicy: 'max-bundle',
    iceUseIpv4: false,
    iceUseIpv6: false,
    iceAdditionalHostAddresses: ['127.0.0.1'],
    ...extra,
  };
}
