// Types of webm-playlist.js for the tests that run its pure part under Node (the page loads the .js as is).
export interface PlaylistSlice {
  readonly url: string;
  readonly duration: number;
  /** Seconds from the start of the playlist (the sum of the EXTINFs before it). */
  readonly start: number;
}
export const WEBM_VP8: string;
export function parseMediaPlaylist(text: string, baseUrl: string): { segments: PlaylistSlice[]; ended: boolean; total: number };
export function isWebmPlaylist(text: string): boolean;
export function attachWebmPlaylist(video: HTMLVideoElement, src: string, onError: (message: string) => void): () => void;
