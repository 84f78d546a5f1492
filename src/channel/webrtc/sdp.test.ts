import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  answersKeyframeRequests,
  chooseSubscribeCodec,
  choosePublishCodec,
  firstMid,
  iceRestartFrag,
  keepCandidates,
  offsetCandidatePorts,
  parseOffer,
  parseSdpFrag,
  restrictOffer,
} from './sdp.ts';

const OFFER = [
  'v=0',
  'o=- 1 2 IN IP4 127.0.0.1',
  's=-',
  't=0 0',
  'a=fingerprint:sha-256 AA:BB',
  'm=audio 9 UDP/TLS/RTP/SAVPF 111 0',
  'a=ice-ufrag:u',
  'a=ice-pwd:p',
  'a=mid:0',
  'a=sendonly',
  'a=rtpmap:111 opus/48000/2',
  'a=fmtp:111 minptime=10',
  'a=rtpmap:0 PCMU/8000',
  'm=video 9 UDP/TLS/RTP/SAVPF 98 102 96 97 103',
  'a=ice-ufrag:u',
  'a=ice-pwd:p',
  'a=mid:1',
  'a=sendonly',
  'a=rtpmap:98 VP9/90000',
  'a=rtpmap:102 H264/90000',
  'a=fmtp:102 profile-level-id=42001f;packetization-mode=0',
  'a=rtpmap:96 VP8/90000',
  'a=rtcp-fb:96 nack pli',
  'a=rtpmap:97 rtx/90000',
  'a=fmtp:97 apt=96',
  'a=rtpmap:103 rtx/90000',
  'a=fmtp:103 apt=102',
  'a=ssrc-group:FID 1 2',
  'a=ssrc-group:SIM 1 3',
  'a=candidate:1 1 udp 1 192.0.2.2 5000 typ host',
  'a=candidate:2 1 udp 1 127.0.0.1 5001 typ host',
  '',
].join('\r\n');

test('sdp: parse, pick forwardable codecs, narrow the offer to one payload type and its RTX, filter candidates', () => {
  const [audio, video] = parseOffer(OFFER);
  assert.equal(audio!.direction, 'sendonly');
  assert.equal(choosePublishCodec(audio!)!.pt, 111);
  assert.equal(choosePublishCodec(video!)!.pt, 96, 'VP9 and packetization-mode 0 H.264 are skipped');
  const narrowed = restrictOffer(OFFER, (s) => choosePublishCodec(s)!.pt);
  assert.match(narrowed, /^m=video 9 UDP\/TLS\/RTP\/SAVPF 96 97$/m, 'VP8 and the RTX repairing it (apt=96)');
  assert.match(narrowed, /a=fmtp:97 apt=96/);
  assert.doesNotMatch(narrowed, /rtpmap:(98|102|103|0) /);
  assert.match(narrowed, /a=ssrc-group:FID 1 2/, 'the RTX pairing stays');
  assert.doesNotMatch(narrowed, /ssrc-group:SIM/);
  const noRtx = restrictOffer(OFFER, (s) => (s.kind === 'video' ? 102 : 111));
  assert.match(noRtx, /^m=video 9 UDP\/TLS\/RTP\/SAVPF 102 103$/m);
  assert.match(restrictOffer(OFFER.replace(/a=rtpmap:97 rtx.*\r\na=fmtp:97 apt=96\r\n/, ''), (s) => choosePublishCodec(s)!.pt), /^m=video 9 UDP\/TLS\/RTP\/SAVPF 96$/m);
  assert.doesNotMatch(restrictOffer(OFFER.replace(/a=rtpmap:97 rtx.*\r\na=fmtp:97 apt=96\r\n/, ''), (s) => choosePublishCodec(s)!.pt), /ssrc-group/, 'no RTX kept: no FID group');
  assert.match(narrowed, /a=rtcp-fb:96 nack pli/);
  assert.throws(() => restrictOffer(OFFER, () => 'no'), /codec_unsupported/);
  const kept = keepCandidates(OFFER, ['127.0.0.1']);
  assert.doesNotMatch(kept, /192\.0\.2\.2/);
  assert.match(kept, /127\.0\.0\.1 5001/);
  const h264 = { mimeType: 'video/h264', clockRate: 90000, channels: undefined, fmtp: 'profile-level-id=42e01f;packetization-mode=1' };
  const sub = parseOffer(OFFER.replace('packetization-mode=0', 'packetization-mode=1').replace(/a=sendonly/g, 'a=recvonly'))[1]!;
  assert.equal(chooseSubscribeCodec(sub, h264)!.pt, 102);
  assert.throws(() => parseOffer('hello'), /bad_sdp/);
  assert.throws(() => parseOffer(OFFER.replace(/a=ice-pwd:p\r\n/g, '')), /ICE password/);
  assert.deepEqual(parseSdpFrag('a=ice-ufrag:x\r\na=ice-pwd:y\r\na=mid:0\r\na=candidate:1 1 udp 1 127.0.0.1 9 typ host\r\n'), {
    lite: false,
    ufrag: 'x',
    pwd: 'y',
    candidates: [{ mid: '0', candidate: 'candidate:1 1 udp 1 127.0.0.1 9 typ host' }],
  });
});

test('sdp: a codec takes keyframe requests when its offer negotiated PLI or FIR, for its payload type or `*`', () => {
  const [audio, video] = parseOffer(OFFER);
  const vp8 = choosePublishCodec(video!)!;
  assert.deepEqual(vp8.feedback, ['nack pli']);
  assert.equal(answersKeyframeRequests(vp8), true);
  assert.equal(answersKeyframeRequests(choosePublishCodec(audio!)!), false, 'no rtcp-fb for Opus');
  const nackOnly = parseOffer(OFFER.replace('a=rtcp-fb:96 nack pli', 'a=rtcp-fb:96 nack'))[1]!;
  assert.equal(answersKeyframeRequests(choosePublishCodec(nackOnly)!), false, 'NACK alone: an ingest relaying a source');
  const fir = parseOffer(OFFER.replace('a=rtcp-fb:96 nack pli', 'a=rtcp-fb:* ccm fir'))[1]!;
  assert.deepEqual(choosePublishCodec(fir)!.feedback, ['ccm fir']);
  assert.equal(answersKeyframeRequests(choosePublishCodec(fir)!), true);
});

test('sdp: offsetCandidatePorts shifts candidate and rtcp ports only (channel.icePortOffset)', () => {
  const sdp = [
    'v=0',
    'm=video 9 UDP/TLS/RTP/SAVPF 96',
    'a=rtcp:9 IN IP4 0.0.0.0',
    'a=candidate:1 1 udp 2130706431 127.0.0.1 40003 typ host',
    'a=rtcp:40003 IN IP4 127.0.0.1',
    'a=rtpmap:96 VP8/90000',
    '',
  ].join('\r\n');
  const out = offsetCandidatePorts(sdp, 1000).split('\r\n');
  assert.equal(out[3], 'a=candidate:1 1 udp 2130706431 127.0.0.1 41003 typ host');
  assert.equal(out[4], 'a=rtcp:41003 IN IP4 127.0.0.1');
  assert.equal(out[2], 'a=rtcp:9 IN IP4 0.0.0.0', 'the discard port stays');
  assert.equal(out[1], 'm=video 9 UDP/TLS/RTP/SAVPF 96');
  assert.equal(offsetCandidatePorts(sdp, 0), sdp);
});

test('sdp: a publisher’s RED for Opus is kept first (m-line and rtpmap order, which werift answers in) only when asked', () => {
  const withRed = OFFER.replace('m=audio 9 UDP/TLS/RTP/SAVPF 111 0', 'm=audio 9 UDP/TLS/RTP/SAVPF 111 63 64 0').replace(
    'a=rtpmap:0 PCMU/8000',
    'a=rtpmap:63 red/48000/2\r\na=fmtp:63 111/111\r\na=rtpmap:64 red/48000/2\r\na=fmtp:64 0/0\r\na=rtpmap:0 PCMU/8000',
  );
  const publish = restrictOffer(withRed, (s) => choosePublishCodec(s)!.pt, { red: true });
  assert.match(publish, /^m=audio 9 UDP\/TLS\/RTP\/SAVPF 63 111$/m, 'RED carrying Opus, not the one carrying PCMU');
  const rtpmaps = publish.split('\r\n').filter((l) => /^a=(rtpmap|fmtp):(63|111|64) /.test(l));
  assert.deepEqual(rtpmaps, ['a=rtpmap:63 red/48000/2', 'a=fmtp:63 111/111', 'a=rtpmap:111 opus/48000/2', 'a=fmtp:111 minptime=10']);
  const plain = restrictOffer(withRed, (s) => choosePublishCodec(s)!.pt);
  assert.match(plain, /^m=audio 9 UDP\/TLS\/RTP\/SAVPF 111$/m);
  assert.doesNotMatch(plain, /red\//);
  assert.match(restrictOffer(OFFER, (s) => choosePublishCodec(s)!.pt, { red: true }), /^m=audio 9 UDP\/TLS\/RTP\/SAVPF 111$/m, 'no RED offered: none kept');
});

test('sdp: an ICE restart fragment carries the new credentials and candidates under the first mid, and parses back', () => {
  const frag = iceRestartFrag({ lite: true, ufrag: 'ab12', pwd: 'p'.repeat(22), candidates: ['candidate:1 1 udp 2130706431 127.0.0.1 40001 typ host'] }, '0');
  assert.equal(
    frag,
    'a=ice-lite\r\na=ice-ufrag:ab12\r\na=ice-pwd:pppppppppppppppppppppp\r\nm=audio 9 UDP/TLS/RTP/SAVPF 0\r\na=mid:0\r\n' +
      'a=candidate:1 1 udp 2130706431 127.0.0.1 40001 typ host\r\na=end-of-candidates\r\n',
  );
  assert.deepEqual(parseSdpFrag(frag), {
    lite: true,
    ufrag: 'ab12',
    pwd: 'p'.repeat(22),
    candidates: [{ mid: '0', candidate: 'candidate:1 1 udp 2130706431 127.0.0.1 40001 typ host' }],
  });
  // The node's candidate filters work on fragments as on whole descriptions.
  assert.match(offsetCandidatePorts(keepCandidates(frag, ['127.0.0.1']), 100), / 40101 typ host/);
  assert.equal(firstMid(OFFER), parseOffer(OFFER)[0]!.mid);
});
