import type { NotifyModule } from '../notify/index.ts';

/** The part of the notify module the control plane uses (tests pass a small recorder of events). */
export type RecordingNotifier = Pick<NotifyModule, 'emit' | 'ncsHosts'>;
