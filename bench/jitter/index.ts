/**
 * What the recorder's loss repair (src/media/jitter) costs per packet on the Node side, against the one per-packet
 * cost the slicer path had before it: a `send` on the connected loopback socket to ffmpeg (the largest item of the
 * Node side's profile, docs/recording-individual.md "Where the cost goes"), measured in the same run. Streams: VP8 at
 * 15 fps, 3 packets a frame, and Opus at 50 packets a second, clean and with 5 % of the packets missing (a seeded
 * choice; holes given up on the stream's own clock, no timers), each the least of three runs. Prints ns per packet, the ratio to a send, and the
 * core share per recorded user (45 video + 50 audio packets a second).
 *
 *   node --import tsx bench/jitter/index.ts   (BENCH_PACKETS=200000 per stream)
 */
import { createSocket } from 'node:dgram';
import { seededRandom } from '../../src/impairment/index.ts';
import { StreamRepair } from '../../src/media/jitter/index.ts';

const N = Number(process.env.BENCH_PACKETS ?? 200_000);

function header(pt: number, marker: boolean, seq: number, ts: number, payloadBytes: number, first: Buffer): Buffer {
  const b = Buffer.alloc(12 + payloadBytes);
  b[0] = 0x80;
  b[1] = (marker ? 0x80 : 0) | pt;
  b.writeUInt16BE(seq & 0xffff, 2);
  b.writeUInt32BE(ts >>> 0, 4);
  b.writeUInt32BE(0x1234, 8);
  first.copy(b, 12);
  return b;
}

/** VP8: 3 packets a frame, a keyframe every 30 frames; arrival times in ms. */
function vp8Stream(): { packets: Buffer[]; atMs: number[] } {
  const packets: Buffer[] = [];
  const atMs: number[] = [];
  for (let i = 0; i < N; i++) {
    const frame = Math.floor(i / 3);
    const part = i % 3;
    const first = part === 0 ? Buffer.from([0x10, frame % 30 === 0 ? 0x00 : 0x01]) : Buffer.from([0x00, 0x00]);
    packets.push(header(96, part === 2, i, frame * 6000, 1000, first));
    atMs.push(frame * (1000 / 15) + part);
  }
  return { packets, atMs };
}

function opusStream(): { packets: Buffer[]; atMs: number[] } {
  const packets: Buffer[] = [];
  const atMs: number[] = [];
  for (let i = 0; i < N; i++) {
    packets.push(header(111, false, i, i * 960, 80, Buffer.from([0x78])));
    atMs.push(i * 20);
  }
  return { packets, atMs };
}

function timeRepair(codec: 'VP8' | 'opus', s: { packets: Buffer[]; atMs: number[] }, loss: number): number {
  const random = seededRandom(27);
  const keep = s.packets.map(() => random() >= loss);
  const r = new StreamRepair(codec, codec === 'VP8' ? 90000 : 48000, { minMs: 250, maxMs: 2000, maxPackets: 2000 });
  let out = 0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < s.packets.length; i++) {
    if (!keep[i]) continue;
    out += r.push(s.packets[i]!, s.atMs[i]!).out.length;
  }
  out += r.flush().out.length;
  const ns = Number(process.hrtime.bigint() - t0) / s.packets.length;
  if (out === 0) throw new Error('nothing came out');
  return ns;
}

async function timeSend(packets: readonly Buffer[]): Promise<number> {
  const sink = createSocket('udp4');
  await new Promise<void>((r) => sink.bind(0, '127.0.0.1', r));
  sink.on('message', () => undefined);
  const sock = createSocket('udp4');
  await new Promise<void>((r) => sock.connect((sink.address() as { port: number }).port, '127.0.0.1', r));
  const t0 = process.hrtime.bigint();
  let sent = 0;
  await new Promise<void>((resolve) => {
    for (const p of packets) sock.send(p, () => ++sent === packets.length && resolve());
  });
  const ns = Number(process.hrtime.bigint() - t0) / packets.length;
  sock.close();
  sink.close();
  return ns;
}

const video = vp8Stream();
const audio = opusStream();
// Warm-up (JIT) on a slice, not counted.
timeRepair('VP8', { packets: video.packets.slice(0, 20_000), atMs: video.atMs.slice(0, 20_000) }, 0);
timeRepair('opus', { packets: audio.packets.slice(0, 20_000), atMs: audio.atMs.slice(0, 20_000) }, 0);
const sendVideo = Math.min(await timeSend(video.packets.slice(0, 50_000)), await timeSend(video.packets.slice(0, 50_000)));
const sendAudio = Math.min(await timeSend(audio.packets.slice(0, 50_000)), await timeSend(audio.packets.slice(0, 50_000)));
/** The least of three runs: a loaded machine only ever adds time. */
const best = (f: () => number) => Math.min(f(), f(), f());
const rows = [
  { stream: 'VP8, clean', ns: best(() => timeRepair('VP8', video, 0)), send: sendVideo },
  { stream: 'VP8, 5 % missing', ns: best(() => timeRepair('VP8', video, 0.05)), send: sendVideo },
  { stream: 'Opus, clean', ns: best(() => timeRepair('opus', audio, 0)), send: sendAudio },
  { stream: 'Opus, 5 % missing', ns: best(() => timeRepair('opus', audio, 0.05)), send: sendAudio },
];
console.log(`jitter bench, ${new Date().toISOString().slice(0, 10)}, ${N} packets per stream; load ${(await import('node:fs')).readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
console.log('| stream | repair ns/packet | socket send ns/packet (same run) | repair / send |');
console.log('|---|---|---|---|');
for (const r of rows) console.log(`| ${r.stream} | ${r.ns.toFixed(0)} | ${r.send.toFixed(0)} | ${(r.ns / r.send).toFixed(2)} |`);
const perUser = (45 * rows[0]!.ns + 50 * rows[2]!.ns) / 1e9;
console.log(`\nper recorded user (45 video + 50 audio packets/s, clean): ${(perUser * 1000).toFixed(3)} ms of CPU a second = ${perUser.toFixed(5)} core`);
