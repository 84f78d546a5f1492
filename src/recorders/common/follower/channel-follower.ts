/**
 * How a recorder follows a channel (individual and mix modes): the token check, the channel's membership events,
 * the publisher links, the subscription plan with its profile warning and idle countdown (`maxIdleTime`, injected
 * clock), `update`'s new lists and hold (HoldSwitch), and the end of a channel session (fatal refusal, stop, idle; statuses and event 41
 * `recorder_leave`). The mode supplies the media side through FollowerHooks (docs/notify.md, "Recorder events").
 */
import type { ChannelEvent, MediaKind, Profile } from '../../../channel/index.ts';
import type { Clock } from '../../../clock/index.ts';
import type { Logger } from '../../../log/index.ts';
import type { RtpTrackDescription } from '../../../media/index.ts';
import type { SenderReport } from '../../../media/mix/live/index.ts';
import type { RecorderReport, RecorderUpdate, RecordingTask, StopResult } from '../../../recording/dispatch/index.ts';
import type { UploadSession } from '../../../storage/index.ts';
import type { ChannelRefusal, ChannelSource } from './channel-source.ts';
import { ERROR_CODE, ERROR_LEVEL, EVENT_MODULE, EVENT_STATUS, LEAVE_CODE, WARN_CODE } from '../../../recording/index.ts';
import { HoldSwitch } from '../hold/index.ts';
import { planSubscriptions, type SubscriptionPlan, type TrackRef } from './plan.ts';
import { PublisherLinks } from './publisher-links.ts';
import { IdleTimer } from './idle-timer.ts';
import type { SessionSignals } from '../signals/index.ts';
import { applyLists, type Subscription } from './subscription.ts';

export type SessionEndReason = 'stopped' | 'idle' | 'error';

export interface ChannelFollowerDeps {
  readonly task: RecordingTask;
  readonly report: RecorderReport;
  readonly source: ChannelSource;
  readonly upload: Pick<UploadSession, 'updateStorage'>;
  readonly clock: Clock;
  readonly log: Logger;
  readonly signals: SessionSignals;
  readonly profile: Profile;
  readonly maxIdleMs: number;
  /** Whom to record at start; `update` replaces its lists. */
  readonly subscription: Subscription;
}

export interface FollowerHooks {
  /** A packet of a linked publisher. */
  onPacket(uid: string, kind: MediaKind, track: RtpTrackDescription, packet: Buffer): void;
  /** An RTCP sender report of a linked publisher's track (modes that align on sender clocks). */
  onSenderReport?(uid: string, kind: MediaKind, report: SenderReport): void;
  /** A channel event of another user, before the membership has settled (reconcile follows). */
  onChannelEvent?(e: ChannelEvent): void;
  /** Bring subscriptions in line with the channel (called once the membership has settled). */
  reconcile(): void;
  /** The mode's end work once the channel and timers are let go: media, files, uploads. */
  finish(reason: SessionEndReason): Promise<StopResult>;
  /** A hold began: end what is being recorded; resolves once its last slice is handed to the uploader. */
  pause(): Promise<void>;
  /** The hold ended: let the next media start a new stream. */
  resume(): void;
}

export class ChannelFollower {
  readonly links: PublisherLinks;
  readonly selfUid: number;
  readonly #signals: SessionSignals;
  readonly #idle: IdleTimer;
  readonly #hold: HoldSwitch;
  #unlisten: (() => void) | undefined;
  #ending: Promise<StopResult> | undefined;
  #profileWarned = false;
  #uidTakenWarned = false;
  #subscription: Subscription;

  constructor(
    private readonly d: ChannelFollowerDeps,
    private readonly hooks: FollowerHooks,
  ) {
    this.#signals = d.signals;
    this.#subscription = d.subscription;
    this.selfUid = Number(d.task.uid);
    this.#idle = new IdleTimer(d.clock, d.maxIdleMs, () => {
      void this.#end('idle').then(
        (r) => d.report.ended({ reason: 'idle', uploadingStatus: r.uploadingStatus, recordedAnything: r.recordedAnything }),
        (e: Error) => d.report.ended({ reason: 'error', uploadingStatus: 'unknown', recordedAnything: false, message: e.message }),
      );
    });
    // Pause and resume (`onhold`), started in the hold the control plane stored; 1100/1101 after the mode's work.
    this.#hold = new HoldSwitch(d.task.settings, d.clock, d.signals, { pause: () => hooks.pause(), resume: () => hooks.resume(), ending: () => this.ending });
    this.links = new PublisherLinks(d.source, {
      onPacket: (uid, kind, track, packet) => hooks.onPacket(uid, kind, track, packet),
      ...(hooks.onSenderReport ? { onSenderReport: hooks.onSenderReport.bind(hooks) } : {}),
      onRefused: (e) => void this.fail(e),
      onFailed: (uid, e) => {
        // The publisher left between the event and the request, or a transient failure: a later event retries.
        d.log.warn({ uid, err: e.message }, 'WHEP subscribe failed');
        this.#signals.warning(EVENT_MODULE.recorder, WARN_CODE.subscribeFailed, `subscribing to uid ${uid} failed`);
      },
    });
  }

  get subscription(): Subscription {
    return this.#subscription;
  }

  /** On hold: no media is recorded (the links stay up). */
  get onhold(): boolean {
    return this.#hold.onhold;
  }

  /**
   * Whether media sent at `sentMs` (the session's clock; media/arrival-anchor.ts SendClock) is on hold: sent during
   * a hold, or arriving while one lasts. A packet held back past a resume (a stall, a retransmission) stays out.
   */
  heldAt(sentMs: number | undefined): boolean {
    return this.#hold.onhold || (sentMs !== undefined && this.#hold.heldAt(sentMs));
  }

  /** `update`: fresh storage credentials, new subscription lists (then a reconcile), a hold or resume. */
  async update(change: RecorderUpdate): Promise<void> {
    if (change.storage) await this.d.upload.updateStorage(change.storage);
    if (change.lists) {
      this.#subscription = applyLists(this.#subscription, change.lists);
      this.hooks.reconcile();
    }
    if (change.onhold !== undefined) await this.#hold.set(change.onhold);
  }

  /** True once the session has begun to end: no new media, links or reports of the live part. */
  get ending(): boolean {
    return this.#ending !== undefined;
  }

  /** Start statuses, the token check (throws ChannelRefusal), then the channel and the upload progress are followed. */
  async open(): Promise<void> {
    this.#signals.open();
    await this.d.source.authorize();
    this.#unlisten = this.d.source.onEvent((e) => this.#onChannelEvent(e));
    this.#signals.startProgress();
  }

  /** The recorder is in the channel and recording (1100 after it for a session that starts on hold). */
  started(): void {
    this.#signals.emit('recorderStarted', { status: EVENT_STATUS.ok });
    this.#signals.status('recorderReady');
    this.#hold.announce();
  }

  #onChannelEvent(e: ChannelEvent): void {
    if (this.ending) return;
    if (e.uid === this.selfUid) {
      // After the change is applied (as below): a publisher with the recorder's own uid is never recorded.
      queueMicrotask(() => this.#warnUidTaken());
      return;
    }
    this.hooks.onChannelEvent?.(e);
    // Membership announces a change before applying it, in the same synchronous step: look at the channel once
    // that step is over. A deferral, not a timer, so it does not wait for the injected clock.
    queueMicrotask(() => this.hooks.reconcile());
  }

  /** The subscription plan for the channel as it is now, with the profile warning and idle countdown done; undefined once ending. */
  plan(streams: readonly TrackRef[]): SubscriptionPlan | undefined {
    if (this.ending) return undefined;
    this.#warnUidTaken();
    const snap = this.d.source.snapshot();
    const plan = planSubscriptions({ profile: snap.profile, participants: snap.participants, selfUid: this.selfUid }, this.#subscription, this.d.profile, {
      links: this.links.kinds(),
      streams,
      profileWarned: this.#profileWarned,
    });
    if (plan.profileWarning !== undefined) {
      this.#profileWarned = true;
      this.#signals.warning(EVENT_MODULE.recorder, WARN_CODE.profileMismatch, plan.profileWarning);
    }
    if (plan.idle) this.#idle.arm();
    else this.#idle.disarm();
    return plan;
  }

  /** Event 2 warnCode 1107, once, when a publisher in the channel has the recorder's uid (start refuses it when already there). */
  #warnUidTaken(): void {
    if (this.#uidTakenWarned || this.ending) return;
    if (!this.d.source.snapshot().participants.some((p) => p.uid === this.selfUid && p.tracks.length > 0)) return;
    this.#uidTakenWarned = true;
    this.#signals.warning(EVENT_MODULE.recorder, WARN_CODE.uidTakenByPublisher, `uid ${this.selfUid} publishes in the channel: it is the recording uid, so it is not recorded`);
  }

  /** A fatal refusal (bad or expired token): error event, abnormal status, the session ends. */
  async fail(e: ChannelRefusal): Promise<void> {
    if (this.ending) return;
    const errorCode = e.code === 'token_expired' ? ERROR_CODE.tokenExpired : ERROR_CODE.tokenInvalid;
    this.#signals.error(EVENT_MODULE.recorder, ERROR_LEVEL.fatal, errorCode, `${e.code}: ${e.reason}`);
    this.#signals.status('exitedAbnormally');
    const r = await this.#end('error');
    this.d.report.ended({ reason: 'error', uploadingStatus: r.uploadingStatus, recordedAnything: r.recordedAnything, message: e.code });
  }

  stop(): Promise<StopResult> {
    return this.#end('stopped');
  }

  #end(reason: SessionEndReason): Promise<StopResult> {
    this.#ending ??= this.#finish(reason);
    return this.#ending;
  }

  async #finish(reason: SessionEndReason): Promise<StopResult> {
    this.#idle.dispose();
    this.#signals.close();
    this.#unlisten?.();
    if (reason !== 'error') this.#signals.status('recordingStopped');
    this.#signals.emit('recorderLeave', { leaveCode: reason === 'idle' ? LEAVE_CODE.idle : LEAVE_CODE.stopped });
    const result = await this.hooks.finish(reason);
    if (reason !== 'error') this.#signals.status('componentsStopped');
    return result;
  }
}
