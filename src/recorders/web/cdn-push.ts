/**
 * The CDN push as the web session reports it (query's `rtmpPublishStatus`, event 100; docs/recording-web.md, "CDN
 * push"): the current target and its status, each change reported once; a report about an earlier target no longer
 * describes the output.
 */
import type { RecorderReport, RtmpStatus } from '../../recording/dispatch/index.ts';
import type { RecorderSignals } from '../common/events.ts';

export class CdnPushStatus {
  #url: string | undefined;
  #reported: { readonly url: string; readonly status: RtmpStatus } | undefined;

  constructor(
    url: string | undefined,
    private readonly report: Pick<RecorderReport, 'rtmpStatus'>,
    private readonly signals: Pick<RecorderSignals, 'emit'>,
  ) {
    this.#url = url;
  }

  get url(): string | undefined {
    return this.#url;
  }

  /** The current target's status (nothing without a target). */
  set(status: RtmpStatus): void {
    const url = this.#url;
    if (url === undefined) return;
    const last = this.#reported;
    if (last?.url === url && last.status === status) return;
    this.#reported = { url, status };
    this.report.rtmpStatus?.(url, status);
    this.signals.emit('rtmpPublishStatus', { rtmpUrl: url, status });
  }

  /** `update`'s new target. */
  retarget(url: string, status: RtmpStatus): void {
    this.#url = url;
    this.set(status);
  }

  /** The pusher's report, when it is about the current target. */
  pushed(url: string, status: RtmpStatus): void {
    if (url === this.#url) this.set(status);
  }
}
