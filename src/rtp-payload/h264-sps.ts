/**
 * The picture size an H.264 sequence parameter set announces (ITU-T H.264 §7.3.2.1.1): enough of the SPS read to
 * reach pic_width_in_mbs_minus1, pic_height_in_map_units_minus1, frame_mbs_only_flag and the cropping window. Pure.
 */

/** Exp-Golomb reader over the SPS's RBSP (emulation prevention bytes removed). */
class BitReader {
  #bit = 0;
  constructor(private readonly bytes: Uint8Array) {}

  u(n: number): number {
    let v = 0;
    for (let i = 0; i < n; i++) {
      const byte = this.bytes[this.#bit >> 3];
      if (byte === undefined) throw new RangeError('SPS ends early');
      v = v * 2 + ((byte >> (7 - (this.#bit & 7))) & 1);
      this.#bit++;
    }
    return v;
  }

  ue(): number {
    let zeros = 0;
    while (this.u(1) === 0) if (++zeros > 31) throw new RangeError('bad Exp-Golomb code');
    return 2 ** zeros - 1 + this.u(zeros);
  }

  se(): number {
    const k = this.ue();
    return k % 2 === 1 ? (k + 1) / 2 : -k / 2;
  }
}

/** The NAL unit's payload without its header byte and without emulation prevention bytes (00 00 03). */
function rbsp(unit: Uint8Array): Uint8Array {
  const out: number[] = [];
  let zeros = 0;
  for (let i = 1; i < unit.length; i++) {
    const b = unit[i]!;
    if (zeros >= 2 && b === 3) {
      zeros = 0;
      continue;
    }
    zeros = b === 0 ? zeros + 1 : 0;
    out.push(b);
  }
  return Uint8Array.from(out);
}

/** Profiles whose SPS carries chroma_format_idc and the scaling lists (§7.3.2.1.1). */
const HIGH_PROFILES = new Set([100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135]);

function skipScalingList(r: BitReader, size: number): void {
  let last = 8;
  let next = 8;
  for (let j = 0; j < size; j++) {
    if (next !== 0) next = (last + r.se() + 256) % 256;
    last = next === 0 ? last : next;
  }
}

/** Width and height in pixels of an SPS NAL unit (header byte included); undefined when it cannot be read. */
export function h264SpsSize(unit: Uint8Array): { readonly width: number; readonly height: number } | undefined {
  if (((unit[0] ?? 0) & 0x1f) !== 7) return undefined;
  try {
    const r = new BitReader(rbsp(unit));
    const profile = r.u(8);
    r.u(16); // constraint flags, level_idc
    r.ue(); // seq_parameter_set_id
    let chroma = 1;
    if (HIGH_PROFILES.has(profile)) {
      chroma = r.ue();
      if (chroma === 3) r.u(1); // separate_colour_plane_flag
      r.ue(); // bit_depth_luma_minus8
      r.ue(); // bit_depth_chroma_minus8
      r.u(1); // qpprime_y_zero_transform_bypass_flag
      const scalingMatrix = r.u(1);
      for (let i = 0; scalingMatrix && i < (chroma === 3 ? 12 : 8); i++) {
        const listPresent = r.u(1);
        if (listPresent) skipScalingList(r, i < 6 ? 16 : 64);
      }
    }
    r.ue(); // log2_max_frame_num_minus4
    const pocType = r.ue();
    if (pocType === 0) r.ue();
    else if (pocType === 1) {
      r.u(1);
      r.se();
      r.se();
      const cycle = r.ue();
      for (let i = 0; i < cycle; i++) r.se();
    }
    r.ue(); // max_num_ref_frames
    r.u(1); // gaps_in_frame_num_value_allowed_flag
    const widthMbs = r.ue() + 1;
    const heightUnits = r.ue() + 1;
    const frameMbsOnly = r.u(1);
    if (!frameMbsOnly) r.u(1); // mb_adaptive_frame_field_flag
    r.u(1); // direct_8x8_inference_flag
    let [left, right, top, bottom] = [0, 0, 0, 0];
    if (r.u(1)) [left, right, top, bottom] = [r.ue(), r.ue(), r.ue(), r.ue()];
    // Crop units (§7.4.2.1.1): 4:2:0 halves both, 4:2:2 only across; a field picture counts lines twice.
    const cropX = chroma === 1 || chroma === 2 ? 2 : 1;
    const cropY = (chroma === 1 ? 2 : 1) * (2 - frameMbsOnly);
    return {
      width: widthMbs * 16 - cropX * (left + right),
      height: (2 - frameMbsOnly) * heightUnits * 16 - cropY * (top + bottom),
    };
  } catch {
    return undefined;
  }
}
