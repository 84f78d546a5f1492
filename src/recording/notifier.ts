/** What the control plane needs from the notify module; kept small so recording does not depend on its internals. */
export interface RecordingEvent {
  readonly appId: string;
  readonly sid: string;
  readonly cname: string;
  readonly uid: string;
  readonly eventType: number;
  readonly serviceType: number;
  readonly details: { readonly msgName: string; readonly [k: string]: unknown };
}

export interface RecordingNotifier {
  /** Durably queued by notify, then delivered and signed. */
  emit(event: RecordingEvent): Promise<void>;
  /** Addresses for GET /v1/ncs/ip. */
  ncsHosts(): readonly string[];
}
