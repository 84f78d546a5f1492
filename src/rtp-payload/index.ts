// RTP headers and codec payloads as far as forwarding and recording need them (VP8 payload descriptor, H.264 NAL units in
// packetization mode 1): where a decoder can start, and H.264's parameter sets. Pure functions over payload bytes,
// used by the channel's SFU and by the recorder's loss repair.
export { AUDIO_LEVEL_URI, audioLevelBlock, audioLevelOfByte, readAudioLevel, type AudioLevel } from './audio-level.ts';
export { H264AccessUnitAssembler, type H264AccessUnit } from './h264-access-unit.ts';
export { H264Reframer, h264Payloads, normalizedAccessUnit } from './h264-packetize.ts';
export { H264ParameterSets, h264IdrStart, h264Nals, NAL, stapA, type H264Nal, type H264ParameterSetPair } from './h264.ts';
export { frameIsKey, startsKeyframe, vp8StartsKeyframe } from './keyframe.ts';
export { opusHasSilk, opusPacketSamples } from './opus.ts';
export { isRtcp, readRtpHeader, type RtpHeaderFields } from './rtp-header.ts';
export { h264SpsSize, vp8KeyframeSize, type VideoSize } from './video-size.ts';
