import type { RtcpSrPacket, RtpPacket } from 'werift';
import type { H264ParameterSetPair, VideoSize } from '../../rtp-payload/index.ts';
import type { ForwardSource, RtpSink, SenderReportSink, TrackFanout } from './forward.ts';
import type { TrackCodec } from './sdp.ts';
import { LayerActivity } from './layer-activity.ts';
import { LAYER_CHOICES, type LayerChoice } from './layer-adaptation.ts';
import type { KeyframeRequestType } from './traffic.ts';


/** How often the layers are ranked again (picture size, bytes since the last ranking); a pause or resume at once. */
const RANK_INTERVAL_MS = 1000;

/**
 * A published video track sent as several encodings (RFC 8853 simulcast, one `rid` each): one `TrackFanout` per
 * layer, which keeps its own numbering, keyframe requests, parameter sets and sender reports, and one view per
 * `LayerChoice` that subscribers attach to as to any published track. A view forwards the packets of the layer it
 * points at; when the ranking moves it to another layer, its subscribers' gates see a new SSRC, wait for that
 * layer's keyframe (the view asks for one) and go on with continuous numbers (gate.ts). Layers are ranked every
 * second: those sending before those not (a publisher pauses an encoding it has no bandwidth or CPU for; half a
 * second of quiet while another goes on tells it, layer-activity.ts), then by picture size (VP8 keyframes, H.264
 * SPS), then by bytes (a size not known yet). `high` is the first, `low` the last that is sending. Until the first
 * ranking, the offer's order; a layer's first known size, a pause and a resume rank again at once.
 */
export class SimulcastFanout {
  readonly kind = 'video' as const;
  readonly #views: Map<LayerChoice, LayerView>;
  /** Layers by bytes received, most first (rid order until the first ranking). */
  #ranked: TrackFanout[];
  #bytesAtRank = new Map<TrackFanout, number>();
  #rankedAt: number;
  /** Layers whose picture size is known: a layer's first size ranks at once. */
  readonly #sized = new Set<TrackFanout>();
  /** Which layers are sending: a change ranks again at once. */
  readonly #activity = new LayerActivity<TrackFanout>();

  constructor(
    readonly codec: TrackCodec,
    /** By rid, in the offer's order. */
    readonly layers: ReadonlyMap<string, TrackFanout>,
    private readonly now: () => number,
  ) {
    this.#ranked = [...layers.values()];
    this.#rankedAt = now();
    this.#views = new Map(LAYER_CHOICES.map((c) => [c, new LayerView(this, c)]));
    for (const layer of layers.values()) {
      layer.addSink((p, behind) => this.#deliver(layer, p, behind));
      layer.addSenderReportSink((r) => {
        for (const v of this.#views.values()) if (v.layer === layer) v.deliverReport(r);
      });
    }
  }

  /** The track as a subscriber that chose `choice` sees it. */
  view(choice: LayerChoice): ForwardSource {
    return this.#views.get(choice)!;
  }

  /** The layer a choice points at now. */
  layerFor(choice: LayerChoice): TrackFanout {
    if (choice === 'high') return this.#ranked[0]!;
    return this.#ranked.findLast((l) => this.#activity.sending(l)) ?? this.#ranked[this.#ranked.length - 1]!;
  }

  /** The layer whose stream is `ssrc`, if any. */
  layerOf(ssrc: number): TrackFanout | undefined {
    for (const l of this.layers.values()) if (l.ssrc === ssrc) return l;
    return undefined;
  }

  /** RTP received on all layers (the console's bitrate). */
  get packets(): number {
    let n = 0;
    for (const l of this.layers.values()) n += l.packets;
    return n;
  }

  get bytes(): number {
    let n = 0;
    for (const l of this.layers.values()) n += l.bytes;
    return n;
  }

  #deliver(layer: TrackFanout, packet: RtpPacket, behind: boolean): void {
    const now = this.now();
    const sendingChanged = this.#activity.packet(layer, now);
    if (!this.#sized.has(layer) && layer.pictureSize()) {
      this.#sized.add(layer);
      this.#rank();
    } else if (sendingChanged || now - this.#rankedAt >= RANK_INTERVAL_MS) this.#rank();
    for (const v of this.#views.values()) if (v.layer === layer) v.deliver(packet, behind);
  }

  #rank(): void {
    const now = this.now();
    const recent = (l: TrackFanout) => l.bytes - (this.#bytesAtRank.get(l) ?? 0);
    const active = (l: TrackFanout) => Number(this.#activity.sending(l));
    const pixels = (l: TrackFanout) => {
      const s = l.pictureSize();
      return s ? s.width * s.height : -1;
    };
    const ranked = [...this.#ranked].sort((a, b) => active(b) - active(a) || pixels(b) - pixels(a) || recent(b) - recent(a));
    this.#bytesAtRank = new Map([...this.layers.values()].map((l) => [l, l.bytes]));
    this.#rankedAt = now;
    this.#ranked = ranked;
    for (const v of this.#views.values()) v.follow(this.layerFor(v.choice));
  }
}

/** What subscribers of one `LayerChoice` attach to. */
class LayerView implements ForwardSource {
  readonly kind = 'video' as const;
  readonly #sinks = new Set<RtpSink>();
  readonly #reportSinks = new Set<SenderReportSink>();
  layer: TrackFanout;

  constructor(
    private readonly simulcast: SimulcastFanout,
    readonly choice: LayerChoice,
  ) {
    this.layer = simulcast.layerFor(choice);
  }

  get codec(): TrackCodec {
    return this.simulcast.codec;
  }

  /** Points the view at another layer: its subscribers will start there at a keyframe, asked for at once. */
  follow(layer: TrackFanout): void {
    if (layer === this.layer) return;
    this.layer = layer;
    if (this.#sinks.size > 0) layer.requestKeyframe();
  }

  deliver(packet: RtpPacket, behind: boolean): void {
    for (const s of this.#sinks) s(packet, behind);
  }

  deliverReport(report: RtcpSrPacket): void {
    for (const s of this.#reportSinks) s(report);
  }

  addSink(sink: RtpSink): () => void {
    this.#sinks.add(sink);
    return () => this.#sinks.delete(sink);
  }

  addSenderReportSink(sink: SenderReportSink): () => void {
    this.#reportSinks.add(sink);
    return () => this.#reportSinks.delete(sink);
  }

  gop(): readonly RtpPacket[] {
    return this.layer.gop();
  }

  requestKeyframe(type?: KeyframeRequestType): void {
    this.layer.requestKeyframe(type);
  }

  parameterSets(): H264ParameterSetPair | undefined {
    return this.layer.parameterSets();
  }
}

/**
 * One subscriber's own view of a simulcast track, which it moves between the `high` and `low` views itself: a WHEP
 * viewer that pinned no layer by the loss it reports (layer-adaptation.ts, driven by SubscribeSession, `choose`), a
 * mix recorder by the size its region is drawn at (`fit`: its in-process tap, or its WHEP link through the session's
 * `fit` route). It gets the lower of the two: what its loss allows, at most what its drawn size needs. A move asks
 * the new layer for a keyframe; the subscriber's gate sees the new SSRC and starts there with continuous numbers, as
 * when the ranking moves a view.
 */
export class SwitchingLayerView implements ForwardSource {
  readonly kind = 'video' as const;
  readonly #sinks = new Set<RtpSink>();
  readonly #reportSinks = new Set<SenderReportSink>();
  #detach: (() => void)[] = [];
  #choice: LayerChoice;
  /** What the viewer's loss allows (`choose`). */
  #allowed: LayerChoice;
  /** The most its drawn size needs (`fit`). */
  #needed: LayerChoice;

  constructor(
    private readonly simulcast: SimulcastFanout,
    /** Where it starts, and the most `fit` takes (a recording of the low layer stays there). */
    private readonly first: LayerChoice,
  ) {
    this.#choice = first;
    this.#allowed = first;
    this.#needed = first;
  }

  get codec(): TrackCodec {
    return this.simulcast.codec;
  }

  /** The layer this subscriber gets now. */
  get choice(): LayerChoice {
    return this.#choice;
  }

  /** What the viewer's loss allows now (the layer it gets is at most what `fit` needs); whether the layer moved. */
  choose(choice: LayerChoice): boolean {
    this.#allowed = choice;
    return this.#move();
  }

  /**
   * Needs the smallest layer whose picture covers `size` (both sides at least as large), at most the first choice;
   * the high one while the low one's size is not known. Whether the layer moved.
   */
  fit(size: VideoSize): boolean {
    if (this.first === 'low') return false;
    const low = this.simulcast.layerFor('low').pictureSize();
    this.#needed = low && low.width >= size.width && low.height >= size.height ? 'low' : 'high';
    return this.#move();
  }

  #move(): boolean {
    const next = this.#allowed === 'low' || this.#needed === 'low' ? 'low' : 'high';
    if (next === this.#choice) return false;
    this.#choice = next;
    this.#current().requestKeyframe();
    return true;
  }

  #current(): ForwardSource {
    return this.simulcast.view(this.choice);
  }

  #attach(): void {
    if (this.#detach.length > 0) return;
    for (const c of LAYER_CHOICES) {
      const view = this.simulcast.view(c);
      this.#detach.push(
        view.addSink((p, behind) => {
          if (c === this.choice) for (const s of this.#sinks) s(p, behind);
        }),
        view.addSenderReportSink((r) => {
          if (c === this.choice) for (const s of this.#reportSinks) s(r);
        }),
      );
    }
  }

  #release(): void {
    if (this.#sinks.size > 0 || this.#reportSinks.size > 0) return;
    for (const d of this.#detach) d();
    this.#detach = [];
  }

  addSink(sink: RtpSink): () => void {
    this.#sinks.add(sink);
    this.#attach();
    return () => {
      this.#sinks.delete(sink);
      this.#release();
    };
  }

  addSenderReportSink(sink: SenderReportSink): () => void {
    this.#reportSinks.add(sink);
    this.#attach();
    return () => {
      this.#reportSinks.delete(sink);
      this.#release();
    };
  }

  gop(): readonly RtpPacket[] {
    return this.#current().gop();
  }

  requestKeyframe(type?: KeyframeRequestType): void {
    this.#current().requestKeyframe(type);
  }

  parameterSets(): H264ParameterSetPair | undefined {
    return this.#current().parameterSets();
  }
}
