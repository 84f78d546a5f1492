/**
 * The transcription hook (reeltime's `recordingConfig.transcription`): each finished speech interval's audio, a
 * 16 kHz mono WAV, is POSTed once to the customer's speech-to-text service through the outbound guard, signed like
 * the webhooks (`Agora-Signature`, `Agora-Signature-V2` of the body with the given secret), and retried after a
 * network error or a 5xx; the text it answers fills the interval's cue (docs/tasks/speaker-timeline.md). No model
 * runs inside reeltime.
 */
import type { Logger } from '../../../log/index.ts';
import { guardedFetch, OutboundUrlError, type OutboundPolicy } from '../../../net/index.ts';
import { signatureHeaders } from '../../../notify/index.ts';
import type { SpeechInterval } from '../../../media/speech/index.ts';
import type { TranscriptionTarget } from '../../../recording/dispatch/index.ts';

/** Waits before each retry: three retries, the last about 7 s after the first try. */
export const TRANSCRIPTION_RETRY_DELAYS_MS: readonly number[] = Object.freeze([500, 2000, 5000]);
/** One POST's limit (the service reads up to ten minutes of speech). */
const REQUEST_TIMEOUT_MS = 30_000;
/** A transcript longer than this is cut (a cue is a caption, not a document). */
const MAX_TEXT = 4000;

export interface TranscriberDeps {
  readonly target: TranscriptionTarget;
  readonly policy: OutboundPolicy;
  readonly log: Logger;
  readonly sid: string;
  readonly cname: string;
  readonly retryDelaysMs?: readonly number[];
}

const keyOf = (i: SpeechInterval): string => `${i.uid}/${i.startMs}`;

/** The service's answer: `{"text": "…"}` as JSON, or the text itself. */
function transcriptOf(body: string, contentType: string | null): string | undefined {
  if (!contentType?.includes('json')) return body.trim() || undefined;
  try {
    const text = (JSON.parse(body) as { text?: unknown }).text;
    return typeof text === 'string' ? text.trim() || undefined : undefined;
  } catch {
    return undefined;
  }
}

export class Transcriber {
  readonly #texts = new Map<string, string>();
  readonly #pending = new Set<Promise<void>>();

  constructor(private readonly d: TranscriberDeps) {}

  /** Sends one interval's audio (once); its text is there when the service answers. */
  submit(interval: SpeechInterval, wav: Buffer): void {
    const p = this.#send(interval, wav).finally(() => this.#pending.delete(p));
    this.#pending.add(p);
  }

  textOf(interval: SpeechInterval): string | undefined {
    return this.#texts.get(keyOf(interval));
  }

  /** How many texts have come (the files are rewritten when it grows). */
  get texts(): number {
    return this.#texts.size;
  }

  /** Resolves when every POST so far has been answered or given up, or after `timeoutMs`. */
  async settled(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<void>((r) => (timer = setTimeout(r, timeoutMs)));
    await Promise.race([Promise.all([...this.#pending]), limit]);
    clearTimeout(timer);
  }

  async #send(i: SpeechInterval, wav: Buffer): Promise<void> {
    const { target, policy, log } = this.d;
    const headers = {
      'content-type': 'audio/wav',
      ...signatureHeaders(wav, target.secret),
      'x-reeltime-sid': this.d.sid,
      'x-reeltime-cname': this.d.cname,
      'x-reeltime-uid': i.uid,
      'x-reeltime-start-utc-ms': String(Math.round(i.startMs)),
      'x-reeltime-end-utc-ms': String(Math.round(i.endMs)),
    };
    const delays = this.d.retryDelaysMs ?? TRANSCRIPTION_RETRY_DELAYS_MS;
    for (let attempt = 0; ; attempt++) {
      let failure: string;
      try {
        const res = await guardedFetch(target.url, { method: 'POST', headers, body: wav, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) }, policy);
        const body = await res.text();
        if (res.status >= 200 && res.status < 300) {
          const text = transcriptOf(body, res.headers.get('content-type'));
          if (text) this.#texts.set(keyOf(i), text.slice(0, MAX_TEXT));
          else log.warn({ uid: i.uid }, 'transcription answered no text');
          return;
        }
        failure = `HTTP ${res.status}`;
        if (res.status < 500) break;
      } catch (e) {
        // A URL the guard refuses is never contacted, and asking again changes nothing.
        if (e instanceof OutboundUrlError) {
          log.warn({ reason: e.message }, 'transcription URL refused by the outbound guard');
          return;
        }
        failure = (e as Error).message;
      }
      const delay = delays[attempt];
      if (delay === undefined) {
        log.warn({ uid: i.uid, failure, attempts: attempt + 1 }, 'transcription given up');
        return;
      }
      await new Promise((r) => setTimeout(r, delay));
    }
    log.warn({ uid: i.uid }, 'transcription refused by the service');
  }
}
