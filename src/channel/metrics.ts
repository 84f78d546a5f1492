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
}
