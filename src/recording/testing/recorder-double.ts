/** A recorder test double: reports what a test tells it to, records the control calls it gets. */
import type {
  RecordedFile,
  Recorder,
  RecorderHandle,
  RecorderReport,
  RecordingMode,
  RecordingTask,
  StopResult,
  UploadingStatus,
} from '../dispatch/types.ts';
import type { RecorderUpdate } from '../dispatch/subscription.ts';
import type { MixLayoutSettings } from '../../media/mix/index.ts';

export interface DoubleSession {
  readonly task: RecordingTask;
  readonly report: RecorderReport;
  readonly updates: RecorderUpdate[];
  readonly layouts: MixLayoutSettings[];
  stopCalls: number;
}

export interface DoubleOptions {
  /** On start: report status 5, a slice start and one file per mode (default true). */
  readonly autoRun?: boolean;
  /** start() rejects (the recorder cannot launch): always, or (a number) for that many first starts. */
  readonly failStart?: boolean | number;
  /** stop() reports nothing recorded. */
  readonly recordNothing?: boolean;
  readonly uploadingStatus?: UploadingStatus;
  /** update() rejects (a recorder fault while recording). */
  readonly failUpdate?: boolean;
}

export function sampleFiles(task: RecordingTask): RecordedFile[] {
  const base = `${task.sid}_${task.cname}`;
  if (task.settings.mode === 'individual') {
    return [
      { fileName: `${base}__uid_s_123__uid_e_audio.m3u8`, trackType: 'audio', uid: '123', mixedAllUser: false, isPlayable: true, sliceStartTime: task.startedAt },
      { fileName: `${base}__uid_s_123__uid_e_video.m3u8`, trackType: 'video', uid: '123', mixedAllUser: false, isPlayable: true, sliceStartTime: task.startedAt },
    ];
  }
  const files: RecordedFile[] = [
    { fileName: `${base}.m3u8`, trackType: 'audio_and_video', uid: '0', mixedAllUser: true, isPlayable: true, sliceStartTime: task.startedAt },
  ];
  if (task.settings.mp4) {
    files.push({ fileName: `${base}_0.mp4`, trackType: 'audio_and_video', uid: '0', mixedAllUser: true, isPlayable: true, sliceStartTime: task.startedAt });
  }
  return files;
}

export class RecorderDouble implements Recorder {
  readonly sessions = new Map<string, DoubleSession>();
  /** When set, stop() waits for it (tests release it to simulate slow uploads). */
  stopGate: Promise<void> | undefined;
  #release: (() => void) | undefined;
  #failedStarts = 0;

  constructor(
    readonly mode: RecordingMode,
    readonly options: DoubleOptions = {},
  ) {}

  holdStops(): void {
    this.stopGate = new Promise<void>((r) => (this.#release = r));
  }

  releaseStops(): void {
    this.#release?.();
    this.stopGate = undefined;
  }

  session(sid: string): DoubleSession {
    const s = this.sessions.get(sid);
    if (!s) throw new Error(`no double session ${sid}`);
    return s;
  }

  async start(task: RecordingTask, report: RecorderReport): Promise<RecorderHandle> {
    const fail = this.options.failStart;
    if (fail === true || (typeof fail === 'number' && this.#failedStarts++ < fail)) {
      throw new Error(`double: cannot start with key ${task.storage.secretKey}`);
    }
    const s: DoubleSession = { task, report, updates: [], layouts: [], stopCalls: 0 };
    this.sessions.set(task.sid, s);
    const files = sampleFiles(task);
    if (this.options.autoRun !== false) {
      report.status(5);
      report.sliceStartTime(task.startedAt);
      if (!this.options.recordNothing) report.files(files);
    }
    return {
      update: async (req) => {
        if (this.options.failUpdate) throw new Error('double: update failed for secretKey=super-secret-key-value');
        s.updates.push(req);
      },
      updateLayout: async (req) => void s.layouts.push(req),
      stop: async (): Promise<StopResult> => {
        s.stopCalls++;
        if (this.stopGate) await this.stopGate;
        return {
          uploadingStatus: this.options.uploadingStatus ?? 'uploaded',
          files: this.options.recordNothing ? [] : files,
          recordedAnything: !this.options.recordNothing,
        };
      },
    };
  }
}

export const allDoubles = (o: DoubleOptions = {}): RecorderDouble[] =>
  (['individual', 'mix', 'web'] as const).map((m) => new RecorderDouble(m, o));
