import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createDecoder, createEncoder } from 'libopus-wasm';
import { opusHasSilk } from '../../rtp-payload/index.ts';
import { createOpusLossRepair } from './opus-loss.ts';
import { parseRtp, rtpBytes, StreamRepair } from './stream-repair.ts';

const FRAME = 960;
const FRAMES = 60;
/** The frame lost in each test: its tone differs from the frame before, so concealment cannot guess it. */
const LOST = 30;

/** One 20 ms stereo frame of a tone whose pitch steps every 5 frames (a voice-like melody). */
function toneFrame(i: number): Int16Array {
  const hz = 220 + 55 * (Math.floor(i / 5) % 6);
  const pcm = new Int16Array(FRAME * 2);
  for (let s = 0; s < FRAME; s++) {
    const v = Math.round(6000 * Math.sin((2 * Math.PI * hz * (i * FRAME + s)) / 48_000));
    pcm[2 * s] = v;
    pcm[2 * s + 1] = v;
  }
  return pcm;
}

/**
 * What a FEC sender makes (libopus, VoIP, in-band FEC for 10 % loss, as Chromium's and ffmpeg's `-fec 1`), or with
 * `celt` a CELT-only one (restricted low delay, as reeltime's own publishers).
 */
async function fecPackets(celt = false): Promise<Buffer[]> {
  const enc = celt
    ? await createEncoder({ channels: 2, sampleRate: 48_000, application: 2051, bitrate: 48_000 })
    : await createEncoder({ channels: 2, sampleRate: 48_000, application: 2048, bitrate: 32_000, fec: true, packetLossPercent: 10 });
  const packets = Array.from({ length: FRAMES }, (_, i) => Buffer.from(enc.encode(toneFrame(i))));
  enc.free();
  return packets;
}

/** The decoded stream when `packets[LOST]` is replaced (null: concealed by the decoder). */
async function decodeWith(packets: readonly Buffer[], replacement: Buffer | null): Promise<Int16Array[]> {
  const dec = await createDecoder({ channels: 2, sampleRate: 48_000 });
  const out = packets.map((p, i) => (i === LOST ? (replacement && replacement.length > 1 ? dec.decode(replacement) : dec.decodePacketLoss(FRAME)) : dec.decode(p)));
  dec.free();
  return out;
}

/** Signal-to-error ratio (dB) of `got` against `want`. */
function snrDb(want: Int16Array, got: Int16Array): number {
  let signal = 0;
  let error = 0;
  for (let i = 0; i < want.length; i++) {
    signal += want[i]! ** 2;
    error += (want[i]! - (got[i] ?? 0)) ** 2;
  }
  return 10 * Math.log10(signal / Math.max(1, error));
}

test('Opus TOC: SILK and hybrid packets can carry FEC, CELT-only ones cannot', () => {
  assert.equal(opusHasSilk(Buffer.from([0x08 << 3, 1])), true, 'SILK WB 10 ms');
  assert.equal(opusHasSilk(Buffer.from([(15 << 3) | 0, 1])), true, 'hybrid FB 20 ms');
  assert.equal(opusHasSilk(Buffer.from([31 << 3, 1])), false, 'CELT FB 20 ms');
  assert.equal(opusHasSilk(Buffer.from([0x08 << 3])), false, 'a TOC-only packet carries nothing');
});

test('a frame lost before a FEC packet is remade from its in-band copy: closer to the original than concealment', async () => {
  const packets = await fecPackets();
  assert.ok(packets.every((p) => opusHasSilk(p)), 'the FEC sender codes in SILK or hybrid mode');
  const reference = await decodeWith(packets, packets[LOST]!);
  const repair = await createOpusLossRepair();
  const started = process.cpuUsage();
  const made = repair.remake(packets.slice(0, LOST), packets[LOST + 1]!, FRAME, 1);
  const cpu = process.cpuUsage(started);
  repair.close();
  assert.equal(made?.lastFromFec, true);
  const remade = made.packets[0]!;
  assert.ok(remade.length > 1, 'a packet with sound');
  const fec = await decodeWith(packets, remade);
  const concealed = await decodeWith(packets, null);
  const fecDb = snrDb(reference[LOST]!, fec[LOST]!);
  const plcDb = snrDb(reference[LOST]!, concealed[LOST]!);
  console.log(`lost frame against the decoded original: FEC ${fecDb.toFixed(1)} dB, concealment ${plcDb.toFixed(1)} dB; repair ${((cpu.user + cpu.system) / 1000).toFixed(1)} ms CPU (the first: libopus compiles)`);
  assert.ok(fecDb > plcDb + 3, `FEC (${fecDb.toFixed(1)} dB) is clearly closer than concealment (${plcDb.toFixed(1)} dB)`);
  assert.ok(fecDb > 3, `the remade frame follows the original (${fecDb.toFixed(1)} dB)`);
});

/** Mean power of interleaved samples. */
const power = (pcm: Int16Array) => pcm.reduce((n, v) => n + v * v, 0) / pcm.length;

test('StreamRepair: a burst of two before a FEC packet: the first concealed by libopus, the second from FEC; both sound', async () => {
  const packets = await fecPackets();
  const rtp = (seq: number, payload: Buffer) => rtpBytes({ payloadType: 111, marker: false, seq, timestamp: seq * FRAME, ssrc: 5 }, payload);
  const r = new StreamRepair('opus', 48_000);
  const repair = await createOpusLossRepair();
  r.useOpusRepair(repair);
  const out: Buffer[] = [];
  for (let s = 0; s < 40; s++) if (s !== 20 && s !== 21) out.push(...r.push(rtp(s, packets[s]!), s * 20).out);
  out.push(...r.flush().out);
  repair.close();
  const made = out.map((b) => parseRtp(b)!).filter((p) => p.seq === 20 || p.seq === 21);
  assert.deepEqual(made.map((p) => p.timestamp), [20 * FRAME, 21 * FRAME]);
  assert.deepEqual([r.stats.concealed, r.stats.fecRecovered], [1, 1]);
  const dec = await createDecoder({ channels: 2, sampleRate: 48_000 });
  const decoded = out.map((b) => dec.decode(parseRtp(b)!.payload));
  dec.free();
  const typical = power(decoded[19]!);
  for (const seq of [20, 21]) assert.ok(power(decoded[seq]!) > typical / 4, `frame ${seq} sounds: ${power(decoded[seq]!).toFixed(0)} against ${typical.toFixed(0)}`);
});

test('StreamRepair: a CELT-only stream (no FEC possible): a lost packet is concealed by libopus as a CELT packet that sounds', async () => {
  const packets = await fecPackets(true);
  assert.ok(packets.every((p) => p[0]! >> 3 >= 16), 'CELT-only');
  const rtp = (seq: number, payload: Buffer) => rtpBytes({ payloadType: 111, marker: false, seq, timestamp: seq * FRAME, ssrc: 6 }, payload);
  const r = new StreamRepair('opus', 48_000);
  const repair = await createOpusLossRepair();
  r.useOpusRepair(repair);
  const out: Buffer[] = [];
  for (let s = 0; s < 40; s++) if (s !== LOST) out.push(...r.push(rtp(s, packets[s]!), s * 20).out);
  out.push(...r.flush().out);
  repair.close();
  assert.deepEqual([r.stats.concealed, r.stats.fecRecovered], [1, 0]);
  const made = out.map((b) => parseRtp(b)!).find((p) => p.seq === LOST)!;
  assert.ok(made.payload[0]! >> 3 >= 16, 'remade in CELT: the decoder behind switches no mode');
  const dec = await createDecoder({ channels: 2, sampleRate: 48_000 });
  const decoded = out.map((b) => dec.decode(parseRtp(b)!.payload));
  dec.free();
  assert.ok(power(decoded[LOST]!) > power(decoded[LOST - 1]!) / 4, 'the concealed frame sounds');

  // Without a repair the same loss goes on as a TOC-only packet, for the decoder behind to conceal.
  const bare = new StreamRepair('opus', 48_000);
  const bareOut: Buffer[] = [];
  for (let s = 0; s < 40; s++) if (s !== LOST) bareOut.push(...bare.push(rtp(s, packets[s]!), s * 20).out);
  assert.equal(bareOut.map((b) => parseRtp(b)!).find((p) => p.seq === LOST)!.payload.length, 1);
});
