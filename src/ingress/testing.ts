/** Test helpers of the ingress module. */

/** What OBS sends with its usual settings (x264 without B-frames, a keyframe every 2 s, AAC 48 kHz stereo). */
export const obsLike = (url: string, seconds?: number) => [
  '-hide_banner', '-loglevel', 'error', '-nostdin',
  '-re', '-f', 'lavfi', '-i', 'color=c=blue:s=640x360:r=15,format=yuv420p',
  '-re', '-f', 'lavfi', '-i', 'sine=frequency=880:sample_rate=48000',
  ...(seconds ? ['-t', String(seconds)] : []),
  '-c:v', 'libx264', '-preset', 'veryfast', '-tune', 'zerolatency', '-bf', '0', '-g', '30', '-b:v', '800k',
  '-c:a', 'aac', '-b:a', '128k', '-ar', '48000', '-ac', '2',
  '-f', 'flv', url,
];
