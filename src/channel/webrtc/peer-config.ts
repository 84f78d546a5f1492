import { networkInterfaces } from 'node:os';
import {
  RTCRtpCodecParameters,
  useAudioLevelIndication,
  useH264,
  useNACK,
  useOPUS,
  usePLI,
  useRepairedRtpStreamId,
  useSdesMid,
  useSdesRTPStreamId,
  useTransportWideCC,
  useVP8,
  type RTCPeerConnectionConfig,
} from 'werift';
import type { ChannelConfig } from '../config.ts';

/** RTX (RFC 4588) for the video codec listed just before it: werift numbers it `apt` = that codec's type. */
export const rtxCodec = (): RTCRtpCodecParameters => new RTCRtpCodecParameters({ mimeType: 'video/rtx', clockRate: 90000 });

/**
 * Codecs the SFU negotiates; offers are first narrowed to one payload type per section and its RTX (see sdp.ts).
 * werift answers with the offer's own payload types and feedback lines; the order here matters only for werift
 * clients, whose RTX entries follow their codec.
 */
export function sfuCodecs(): NonNullable<RTCPeerConnectionConfig['codecs']> {
  return {
    audio: [useOPUS()],
    video: [useVP8({ rtcpFeedback: [useNACK(), usePLI()] }), rtxCodec(), useH264({ rtcpFeedback: [useNACK(), usePLI()] }), rtxCodec()],
  };
}

/** RED (RFC 2198) for the Opus of a publisher that offers it: werift's receiver unwraps it (see sdp.ts). */
const redCodec = (): RTCRtpCodecParameters => new RTCRtpCodecParameters({ mimeType: 'audio/red', clockRate: 48000, channels: 2 });

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
    // Clients (werift publishers) do not offer RED: werift's sender would stamp its Opus packets with RED's type.
    codecs: { ...sfuCodecs(), audio: [redCodec(), useOPUS()] },
    // transport-wide-cc: publishers number their packets across the transport and the node reports their arrival
    // times back (webrtc/twcc.ts), which is what Chromium's bandwidth estimator adapts to. rtp-stream-id and its
    // repaired form name a simulcast publisher's encodings in its packets (webrtc/simulcast.ts). ssrc-audio-level
    // (RFC 6464): a publisher's level of each audio packet, passed on to viewers and recorders (the speaker timeline).
    headerExtensions: {
      audio: [useSdesMid(), useTransportWideCC(), useAudioLevelIndication()],
      video: [useSdesMid(), useTransportWideCC(), useSdesRTPStreamId(), useRepairedRtpStreamId()],
    },
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
    // The audio level extension: a viewer (the recorder's WHEP link) gets the publisher's levels (werift's own sender
    // writes none, so a werift publisher sends none).
    headerExtensions: { audio: [useSdesMid(), useAudioLevelIndication()], video: [useSdesMid()] },
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
