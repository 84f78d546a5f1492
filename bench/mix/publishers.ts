/**
 * The mix benchmark's publishers, in their own process so that their CPU (replay pacing or live ffmpeg encoders,
 * werift send) is measured apart from the recorder's. Started by bench/mix/index.ts with one JSON argument (`PublishersPlan`);
 * prints one JSON line per message on stdout (`PublishersMessage`) and leaves the channel when stdin closes
 * (which also happens when the benchmark process dies).
 */
import { prepareReplay, startSyntheticPublisher, type SyntheticPublisher } from '../../src/channel/index.ts';
import { APP, rtcToken } from '../../src/recorders/individual/testing/harness.ts';

export interface PublisherPlan {
  readonly uid: number;
  readonly color: string;
  readonly toneHz: number;
  readonly codec: 'vp8' | 'h264';
  readonly width: number;
  readonly height: number;
}

export interface PublishersPlan {
  readonly baseUrl: string;
  readonly cname: string;
  readonly fps: number;
  readonly frameCode: boolean;
  readonly users: readonly PublisherPlan[];
  /**
   * `replay` (default): each publisher's media is encoded once beforehand and paced out from memory, so 17
   * publishers cost little and keep real time on a busy machine; `live`: an ffmpeg encoder per publisher.
   */
  readonly mode?: 'live' | 'replay';
}

export type PublishersMessage =
  | { readonly type: 'ready' }
  | { readonly type: 'failed'; readonly message: string }
  /** Send times (ms) of video frames: [uid, frame index, sentAtMs] each. */
  | { readonly type: 'frames'; readonly frames: readonly (readonly [number, number, number])[] };

/** Publishers connected at a time, and tries each: a loaded machine refuses nothing, it is only slow. */
const CONNECT_BATCH = 2;
/** Replay encodes run at once (each is one ffmpeg, single-threaded for these sizes). */
const PREPARE_BATCH = 2;
const CONNECT_TRIES = 3;

const send = (m: PublishersMessage): void => void process.stdout.write(`${JSON.stringify(m)}\n`);

async function withRetries<T>(start: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (e) {
      if (attempt >= CONNECT_TRIES) throw e;
    }
  }
}

async function main(): Promise<void> {
  const plan = JSON.parse(process.argv[2]!) as PublishersPlan;
  const publishers: SyntheticPublisher[] = [];
  let frames: [number, number, number][] = [];
  const flush = setInterval(() => {
    if (frames.length === 0) return;
    send({ type: 'frames', frames });
    frames = [];
  }, 200);
  const stop = async (): Promise<void> => {
    clearInterval(flush);
    await Promise.all(publishers.map((p) => p.stop().catch(() => undefined)));
    process.exit(0);
  };
  process.stdin.on('end', () => void stop());
  process.stdin.on('close', () => void stop());
  process.stdin.resume();
  const mode = plan.mode ?? 'replay';
  const media = (u: PublisherPlan) => ({ color: u.color, toneHz: u.toneHz, codec: u.codec, width: u.width, height: u.height, fps: plan.fps, frameCode: plan.frameCode });
  try {
    // The encodes first (a cached one is only read), so that no publisher waits on another's while connected.
    if (mode === 'replay') {
      for (let i = 0; i < plan.users.length; i += PREPARE_BATCH) await Promise.all(plan.users.slice(i, i + PREPARE_BATCH).map((u) => prepareReplay(media(u))));
    }
    for (let i = 0; i < plan.users.length; i += CONNECT_BATCH) {
      const batch = plan.users.slice(i, i + CONNECT_BATCH);
      const started = await Promise.all(
        batch.map((u) =>
          withRetries(() => startSyntheticPublisher({
            baseUrl: plan.baseUrl,
            appId: APP,
            cname: plan.cname,
            uid: u.uid,
            token: rtcToken(plan.cname, u.uid),
            ...media(u),
            mode,
            onVideoFrame: (index, sentAtMs) => frames.push([u.uid, index, sentAtMs]),
          }).then(async (p) => {
            try {
              await p.ready;
              return p;
            } catch (e) {
              await p.stop().catch(() => undefined);
              throw e;
            }
          })),
        ),
      );
      publishers.push(...started);
    }
    send({ type: 'ready' });
  } catch (e) {
    send({ type: 'failed', message: (e as Error).message });
    await stop();
  }
}

await main();
