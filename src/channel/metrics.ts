import type { MetricsRegistry, Sample } from '../metrics/index.ts';
import type { MediaKind } from './membership/index.ts';
import type { Sfu } from './sfu.ts';
import type { TrafficDirection } from './webrtc/index.ts';

const DIRECTIONS: readonly TrafficDirection[] = ['in', 'out'];
const KINDS: readonly MediaKind[] = ['audio', 'video'];

/** The SFU on /metrics (docs/metrics.md): who is connected, and the RTP and feedback that passed through it. */
export function registerChannelMetrics(metrics: MetricsRegistry, sfu: Sfu): void {
  metrics.gaugeFrom({ name: 'reeltime_channels', help: 'Channels with someone in them on this node', labelNames: [] }, () => [
    [{}, sfu.membership.channels().length],
  ]);
  metrics.gaugeFrom(
    { name: 'reeltime_channel_participants', help: 'Participants of the channels on this node, by role (host, audience)', labelNames: ['role'] },
    () => {
      const byRole = { host: 0, audience: 0 };
      for (const c of sfu.membership.channels()) {
        for (const p of sfu.membership.snapshot(c.appId, c.cname).participants) byRole[p.role]++;
      }
      return Object.entries(byRole).map(([role, n]) => [{ role }, n] as const);
    },
  );
  const t = sfu.traffic;
  const rtp = (field: 'packets' | 'bytes') => (): Sample<'direction' | 'kind'>[] =>
    DIRECTIONS.flatMap((direction) => KINDS.map((kind) => [{ direction, kind }, t.rtp[direction][kind][field]] as const));
  metrics.counterFrom(
    { name: 'reeltime_rtp_packets_total', help: 'RTP packets (in: from publishers, out: to subscribers), by media kind', labelNames: ['direction', 'kind'] },
    rtp('packets'),
  );
  metrics.counterFrom(
    { name: 'reeltime_rtp_bytes_total', help: 'RTP bytes, header and payload (in: from publishers, out: to subscribers), by media kind', labelNames: ['direction', 'kind'] },
    rtp('bytes'),
  );
  metrics.counterFrom(
    { name: 'reeltime_rtcp_nack_total', help: 'RTCP NACK messages (in: from subscribers, out: sent to publishers)', labelNames: ['direction'] },
    () => DIRECTIONS.map((direction) => [{ direction }, t.nack[direction]] as const),
  );
  metrics.counterFrom(
    { name: 'reeltime_rtcp_pli_total', help: 'RTCP picture loss indications (in: from subscribers, out: sent to publishers)', labelNames: ['direction'] },
    () => DIRECTIONS.map((direction) => [{ direction }, t.pli[direction]] as const),
  );
  metrics.counterFrom(
    { name: 'reeltime_rtcp_fir_total', help: 'RTCP full intra requests (in: from subscribers, out: sent to publishers)', labelNames: ['direction'] },
    () => DIRECTIONS.map((direction) => [{ direction }, t.fir[direction]] as const),
  );
  metrics.counterFrom(
    {
      name: 'reeltime_keyframe_requests_limited_total',
      help: 'Keyframe requests (PLI, FIR) not sent to a publisher because one went out less than 300 ms before on that track',
      labelNames: ['type'],
    },
    () => (['pli', 'fir'] as const).map((type) => [{ type }, t.keyframeLimited[type]] as const),
  );
  metrics.counterFrom(
    { name: 'reeltime_keyframe_requests_on_loss_total', help: 'Keyframe requests the SFU made because a video packet could not be repaired in time', labelNames: [] },
    () => [[{}, t.keyframeOnLoss]],
  );
  metrics.counterFrom(
    {
      name: 'reeltime_viewer_layer_switches_total',
      help: 'Viewers of simulcast publishers moved to the low layer (down) by the loss they reported or the delay trend of their feedback, or tried on the high one again (up)',
      labelNames: ['direction'],
    },
    () => (['down', 'up'] as const).map((direction) => [{ direction }, t.layerSwitches[direction]] as const),
  );
  metrics.counterFrom(
    {
      name: 'reeltime_tap_layer_moves_total',
      help: 'In-process recorders (mix) moved to a simulcast publisher’s low or high layer by the size of the region they draw it in',
      labelNames: ['layer'],
    },
    () => (['high', 'low'] as const).map((layer) => [{ layer }, t.tapLayerMoves[layer]] as const),
  );
  metrics.counterFrom(
    {
      name: 'reeltime_viewer_fit_layer_moves_total',
      help: 'WHEP viewers (mix recorders on another node) moved to a simulcast publisher’s low or high layer by the size they draw it at',
      labelNames: ['layer'],
    },
    () => (['high', 'low'] as const).map((layer) => [{ layer }, t.viewerFitMoves[layer]] as const),
  );
  metrics.counterFrom(
    { name: 'reeltime_rtcp_nack_answered_total', help: 'Subscribers’ NACKs answered with at least one retransmission', labelNames: [] },
    () => [[{}, t.nackAnswered]],
  );
  metrics.counterFrom(
    { name: 'reeltime_rtp_retransmissions_total', help: 'Packets resent to subscribers from the retransmission cache (plain or RTX)', labelNames: [] },
    () => [[{}, t.retransmissions]],
  );
  metrics.counterFrom(
    { name: 'reeltime_rtp_rtx_packets_total', help: 'RTX packets (RFC 4588; in: repairs from publishers, out: retransmissions to subscribers)', labelNames: ['direction'] },
    () => DIRECTIONS.map((direction) => [{ direction }, t.rtx[direction]] as const),
  );
  metrics.counterFrom(
    { name: 'reeltime_rtp_unrepaired_total', help: 'Publisher packets NACKed and given up (no retransmission could arrive in time)', labelNames: [] },
    () => [[{}, t.unrepaired]],
  );
  metrics.counterFrom(
    { name: 'reeltime_rtp_duplicates_total', help: 'Publisher packets that had already arrived (repeated repairs, RTX probes): not forwarded', labelNames: [] },
    () => [[{}, t.duplicates]],
  );
  metrics.counterFrom(
    { name: 'reeltime_rtcp_twcc_total', help: 'Transport-wide congestion control feedback packets sent to publishers', labelNames: [] },
    () => [[{}, t.twccOut]],
  );
  metrics.counterFrom(
    { name: 'reeltime_rtcp_twcc_received_total', help: 'Transport-wide congestion control feedback packets read from viewers whose layer it can move (no layer pinned, a simulcast publisher)', labelNames: [] },
    () => [[{}, t.twccIn]],
  );
  metrics.counterFrom(
    {
      name: 'reeltime_viewer_delay_moves_total',
      help: 'WHEP viewers of simulcast publishers moved to the low layer because the delay of their feedback grew (a queue filling up)',
      labelNames: [],
    },
    () => [[{}, t.delayMoves]],
  );
}
