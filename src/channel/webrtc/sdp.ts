import { ChannelError } from '../errors.ts';

/** One payload type of an m-section. */
export interface SdpCodec {
  readonly pt: number;
  /** As written in a=rtpmap, e.g. "VP8", "H264", "opus". */
  readonly name: string;
  readonly clockRate: number;
  readonly channels: number | undefined;
  readonly fmtp: string;
  /** Its a=rtcp-fb values (and those for `*`), e.g. "nack", "nack pli", "ccm fir". */
  readonly feedback: readonly string[];
}

export interface SdpSection {
  readonly kind: 'audio' | 'video' | 'application' | string;
  readonly mid: string | undefined;
  readonly direction: 'sendrecv' | 'sendonly' | 'recvonly' | 'inactive';
  readonly codecs: readonly SdpCodec[];
  /** Its simulcast encodings (`a=rid:<id> send`, RFC 8851), in the offer's order; empty without simulcast. */
  readonly rids: readonly string[];
}

/** The codec a published track carries, as listed in membership. */
export interface TrackCodec {
  /** Lower-case mime type: "audio/opus", "video/vp8", "video/h264". */
  readonly mimeType: string;
  readonly clockRate: number;
  readonly channels: number | undefined;
  readonly fmtp: string;
}

function splitLines(sdp: string): string[] {
  return sdp.split(/\r?\n/).filter((l) => l.length > 0);
}

function sectionsOf(lines: readonly string[]): { head: string[]; media: string[][] } {
  const head: string[] = [];
  const media: string[][] = [];
  for (const l of lines) {
    if (l.startsWith('m=')) media.push([l]);
    else if (media.length > 0) media[media.length - 1]!.push(l);
    else head.push(l);
  }
  return { head, media };
}

function parseSection(lines: readonly string[], sessionDirection: SdpSection['direction']): SdpSection {
  const m = /^m=(\S+) \d+ \S+ ?(.*)$/.exec(lines[0]!);
  if (!m) throw new ChannelError('bad_sdp', `malformed media line "${lines[0]}"`);
  const pts = m[2]!.split(' ').filter(Boolean).map(Number);
  const rtpmap = new Map<number, { name: string; clockRate: number; channels: number | undefined }>();
  const fmtp = new Map<number, string>();
  const feedback = new Map<number | '*', string[]>();
  let mid: string | undefined;
  let direction = sessionDirection;
  const rids: string[] = [];
  for (const l of lines) {
    let r: RegExpExecArray | null;
    if ((r = /^a=rtpmap:(\d+) ([^/]+)\/(\d+)(?:\/(\d+))?/.exec(l))) {
      rtpmap.set(Number(r[1]), { name: r[2]!, clockRate: Number(r[3]), channels: r[4] ? Number(r[4]) : undefined });
    } else if ((r = /^a=fmtp:(\d+) (.*)$/.exec(l))) fmtp.set(Number(r[1]), r[2]!);
    else if ((r = /^a=rtcp-fb:(\d+|\*) (.+)$/.exec(l))) {
      const pt = r[1] === '*' ? '*' : Number(r[1]);
      feedback.set(pt, [...(feedback.get(pt) ?? []), r[2]!.trim().toLowerCase()]);
    }
    else if ((r = /^a=mid:(\S+)/.exec(l))) mid = r[1];
    else if ((r = /^a=rid:(\S+) send\b/.exec(l))) rids.push(r[1]!);
    else if ((r = /^a=(sendrecv|sendonly|recvonly|inactive)$/.exec(l))) direction = r[1] as SdpSection['direction'];
  }
  const codecs: SdpCodec[] = [];
  for (const pt of pts) {
    const map = rtpmap.get(pt);
    if (map) codecs.push({ pt, ...map, fmtp: fmtp.get(pt) ?? '', feedback: [...(feedback.get('*') ?? []), ...(feedback.get(pt) ?? [])] });
  }
  return { kind: m[1]!, mid, direction, codecs, rids };
}

/** The id a description gives header extension `uri` in its first section of `kind` (`a=extmap:<id> <uri>`). */
export function extmapId(sdp: string, kind: string, uri: string): number | undefined {
  const section = sectionsOf(splitLines(sdp)).media.find((m) => m[0]!.startsWith(`m=${kind} `));
  for (const l of section ?? []) {
    const r = /^a=extmap:(\d+)(?:\/\w+)? (\S+)/.exec(l);
    if (r && r[2] === uri) return Number(r[1]);
  }
  return undefined;
}

/** Parses and sanity-checks an SDP offer; throws bad_sdp naming what is wrong. */
export function parseOffer(sdp: string): SdpSection[] {
  const lines = splitLines(sdp);
  if (lines[0] !== 'v=0') throw new ChannelError('bad_sdp', 'the body is not an SDP offer (it must start with "v=0")');
  const { head, media } = sectionsOf(lines);
  if (media.length === 0) throw new ChannelError('bad_sdp', 'the offer has no media sections');
  const has = (prefix: string, ls: readonly string[]) => ls.some((l) => l.startsWith(prefix));
  const sessionDirection =
    (head.find((l) => /^a=(sendrecv|sendonly|recvonly|inactive)$/.test(l))?.slice(2) as SdpSection['direction']) ??
    'sendrecv';
  return media.map((sec) => {
    for (const [attr, what] of [
      ['a=ice-ufrag:', 'ICE ufrag'],
      ['a=ice-pwd:', 'ICE password'],
      ['a=fingerprint:', 'DTLS fingerprint'],
    ] as const) {
      if (!has(attr, sec) && !has(attr, head)) throw new ChannelError('bad_sdp', `a media section lacks the ${what} (${attr})`);
    }
    return parseSection(sec, sessionDirection);
  });
}

/** One `key=value` of an a=fmtp line (the value may itself hold "=", as base64 does). */
export function fmtpParam(fmtp: string, key: string): string | undefined {
  for (const kv of fmtp.split(';')) {
    const eq = kv.indexOf('=');
    if (eq < 0) continue;
    if (kv.slice(0, eq).trim().toLowerCase() === key) return kv.slice(eq + 1).trim();
  }
  return undefined;
}

export function isForwardableVideo(c: SdpCodec): boolean {
  const name = c.name.toUpperCase();
  if (name === 'VP8') return true;
  return name === 'H264' && fmtpParam(c.fmtp, 'packetization-mode') === '1';
}

/** Whether the offerer takes keyframe requests for a codec: it negotiated PLI or FIR (RFC 4585 §4.2, RFC 5104). */
export function answersKeyframeRequests(c: SdpCodec): boolean {
  return c.feedback.some((f) => f === 'nack pli' || f === 'ccm fir');
}

export function codecOf(c: SdpCodec, kind: string): TrackCodec {
  return { mimeType: `${kind}/${c.name.toLowerCase()}`, clockRate: c.clockRate, channels: c.channels, fmtp: c.fmtp };
}

/** What a publisher may send: Opus audio; VP8 or H.264 (packetization-mode 1) video in the offerer's order. */
export function choosePublishCodec(section: SdpSection): SdpCodec | undefined {
  if (section.kind === 'audio') return section.codecs.find((c) => c.name.toLowerCase() === 'opus');
  if (section.kind === 'video') return section.codecs.find(isForwardableVideo);
  return undefined;
}

/** The subscriber's payload type for the publisher's codec (same profile for H.264 when offered). */
export function chooseSubscribeCodec(section: SdpSection, published: TrackCodec): SdpCodec | undefined {
  const name = published.mimeType.split('/')[1]!;
  const same = section.codecs.filter((c) => c.name.toLowerCase() === name && (section.kind === 'audio' || isForwardableVideo(c)));
  if (name !== 'h264') return same[0];
  const profile = (fmtpParam(published.fmtp, 'profile-level-id') ?? '42e01f').slice(0, 4).toLowerCase();
  return same.find((c) => (fmtpParam(c.fmtp, 'profile-level-id') ?? '42e01f').slice(0, 4).toLowerCase() === profile) ?? same[0];
}

/** An a=rtpmap, a=fmtp or a=rtcp-fb line and its payload type (or `*`). */
const CODEC_LINE = /^a=(rtpmap|fmtp|rtcp-fb):(\d+|\*)/;

/**
 * Rewrites an offer so each media section lists only the chosen payload type (werift answers with every
 * codec of a matching name and sends with the first one; forwarding without transcoding needs exactly one).
 * `choose` returns the PT to keep, or a reason why the section cannot be served.
 */
export function restrictOffer(
  sdp: string,
  choose: (section: SdpSection, index: number) => number | string,
  opts: { readonly red?: boolean } = {},
): string {
  const lines = splitLines(sdp);
  const { head, media } = sectionsOf(lines);
  const out = [...head];
  media.forEach((sec, i) => {
    const parsed = parseSection(sec, 'sendrecv');
    if (parsed.kind === 'application') {
      out.push(...sec);
      return;
    }
    const keep = choose(parsed, i);
    if (typeof keep === 'string') throw new ChannelError('codec_unsupported', keep);
    const m = /^m=(\S+) (\d+) (\S+) /.exec(sec[0]!)!;
    // The chosen codec's retransmission format (RFC 4588, a=fmtp apt=) stays: werift unwraps RTX it receives and
    // sends its retransmissions as RTX where the peer offered it (docs/channel.md, "Loss on each hop").
    const rtx = rtxPayloadTypes(parsed, keep);
    // `red`: RED wrapping the chosen audio codec (RFC 2198, Chromium offers it for Opus) stays, listed first, so the
    // answer lists it first and the publisher sends it; werift's receiver unwraps it, a lost packet coming back
    // from the next one's redundant copy (docs/channel.md, "Loss on each hop").
    const red = opts.red && parsed.kind === 'audio' ? redPayloadTypes(parsed, keep) : [];
    const kept = new Set([...red, keep, ...rtx]);
    out.push(`m=${m[1]} ${m[2]} ${m[3]} ${[...kept].join(' ')}`);
    // werift takes a section's codecs in the order of its rtpmap lines (not the m-line's) and answers in that order:
    // RED's lines go before the others.
    const codecPt = (l: string) => CODEC_LINE.exec(l)?.[2];
    const redLines = sec.filter((l) => red.includes(Number(codecPt(l))));
    let redPlaced = redLines.length === 0;
    for (const l of sec.slice(1)) {
      const pt = codecPt(l);
      if (!redPlaced && l.startsWith('a=rtpmap:')) {
        out.push(...redLines);
        redPlaced = true;
      }
      if (pt !== undefined && pt !== '*' && (red.includes(Number(pt)) || !kept.has(Number(pt)))) continue;
      // Simulcast groups refer to SSRCs we drop; the RTX pairing (FID) is kept with its payload type.
      if (/^a=ssrc-group:/.test(l) && !(rtx.length > 0 && /^a=ssrc-group:FID /.test(l))) continue;
      out.push(l);
    }
  });
  return out.join('\r\n') + '\r\n';
}

/** The RED payload types (RFC 2198) of a section that carry only payload type `pt` (a=fmtp:N pt/pt). */
export function redPayloadTypes(section: SdpSection, pt: number): number[] {
  return section.codecs
    .filter((c) => c.name.toLowerCase() === 'red' && c.fmtp.trim() !== '' && c.fmtp.trim().split('/').every((x) => x === String(pt)))
    .map((c) => c.pt);
}

/** The RTX payload types (RFC 4588) of a section that repair payload type `pt` (a=fmtp:N apt=pt). */
export function rtxPayloadTypes(section: SdpSection, pt: number): number[] {
  return section.codecs.filter((c) => c.name.toLowerCase() === 'rtx' && fmtpParam(c.fmtp, 'apt') === String(pt)).map((c) => c.pt);
}

/** Keeps only ICE candidates on the given addresses (werift also gathers on every interface). */
export function keepCandidates(sdp: string, addresses: readonly string[]): string {
  return (
    splitLines(sdp)
      .filter((l) => {
        const m = /^a=candidate:\S+ \d+ \S+ \d+ (\S+) /.exec(l);
        return !m || addresses.includes(m[1]!);
      })
      .join('\r\n') + '\r\n'
  );
}

/**
 * Adds `offset` to the port of every candidate line (and of `a=rtcp`), so a peer sends to a port-shifting forward
 * in front of the node (channel.icePortOffset). The node is ICE-lite: it only answers checks, wherever they come from.
 */
export function offsetCandidatePorts(sdp: string, offset: number): string {
  if (offset === 0) return sdp;
  return (
    splitLines(sdp)
      .map((l) => {
        const c = /^(a=candidate:\S+ \d+ \S+ \d+ \S+ )(\d+)( .*)$/.exec(l);
        if (c) return `${c[1]}${Number(c[2]) + offset}${c[3]}`;
        const r = /^(a=rtcp:)(\d+)( .*)$/.exec(l);
        if (r && r[2] !== '9') return `${r[1]}${Number(r[2]) + offset}${r[3]}`;
        return l;
      })
      .join('\r\n') + '\r\n'
  );
}

export interface SdpFrag {
  /** `a=ice-lite` was present (the sender is an ICE-lite agent). */
  readonly lite: boolean;
  readonly ufrag: string | undefined;
  readonly pwd: string | undefined;
  readonly candidates: readonly { readonly mid: string | undefined; readonly candidate: string }[];
}

/** Parses an `application/trickle-ice-sdpfrag` body (RFC 8840). */
export function parseSdpFrag(body: string): SdpFrag {
  let lite = false;
  let ufrag: string | undefined;
  let pwd: string | undefined;
  let mid: string | undefined;
  const candidates: { mid: string | undefined; candidate: string }[] = [];
  for (const l of splitLines(body)) {
    let r: RegExpExecArray | null;
    if (l === 'a=ice-lite') lite = true;
    else if ((r = /^a=ice-ufrag:(\S+)/.exec(l))) ufrag = r[1];
    else if ((r = /^a=ice-pwd:(\S+)/.exec(l))) pwd = r[1];
    else if ((r = /^a=mid:(\S+)/.exec(l))) mid = r[1];
    else if (l.startsWith('a=candidate:')) candidates.push({ mid, candidate: l.slice(2) });
  }
  return { lite, ufrag, pwd, candidates };
}

/** One side's ICE parameters of a new ICE generation (an ICE restart). */
export interface IceGeneration {
  readonly lite: boolean;
  readonly ufrag: string;
  readonly pwd: string;
  /** `candidate:...` values (no `a=`). */
  readonly candidates: readonly string[];
}

/**
 * The `application/trickle-ice-sdpfrag` body of an ICE restart (RFC 9725 section 4.3.2, RFC 8840): the new
 * credentials, then the candidates under the bundle's first m-section (`mid`), then end-of-candidates.
 */
export function iceRestartFrag(g: IceGeneration, mid: string): string {
  const lines = [
    ...(g.lite ? ['a=ice-lite'] : []),
    `a=ice-ufrag:${g.ufrag}`,
    `a=ice-pwd:${g.pwd}`,
    'm=audio 9 UDP/TLS/RTP/SAVPF 0',
    `a=mid:${mid}`,
    ...g.candidates.map((c) => `a=${c}`),
    'a=end-of-candidates',
  ];
  return lines.join('\r\n') + '\r\n';
}

/** The first m-section's mid of an SDP (a bundle's transport is named by it). */
export function firstMid(sdp: string): string | undefined {
  for (const l of splitLines(sdp)) {
    const r = /^a=mid:(\S+)/.exec(l);
    if (r) return r[1];
  }
  return undefined;
}
