/** NTP timestamps (RTCP sender reports) ↔ Unix milliseconds. */

/** Seconds between the NTP epoch (1900) and the Unix epoch (1970). */
const NTP_UNIX_OFFSET_SEC = 2_208_988_800;

/** A 64-bit NTP timestamp (seconds since 1900 in the high 32 bits, fraction in the low 32) as Unix milliseconds. */
export function ntpToUnixMs(ntp: bigint): number {
  const seconds = Number(ntp >> 32n);
  const fraction = Number(ntp & 0xffffffffn) / 2 ** 32;
  return (seconds - NTP_UNIX_OFFSET_SEC + fraction) * 1000;
}

/** Unix milliseconds as a 64-bit NTP timestamp. */
export function unixMsToNtp(ms: number): bigint {
  const total = ms / 1000 + NTP_UNIX_OFFSET_SEC;
  const seconds = Math.floor(total);
  return (BigInt(seconds) << 32n) | BigInt(Math.floor((total - seconds) * 2 ** 32));
}
