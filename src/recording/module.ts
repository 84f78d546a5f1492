import type { ChannelModule } from '../channel/index.ts';
import type { NotifyModule } from '../notify/index.ts';
import type { ReeltimeModule, ServerContext } from '../server/module.ts';
import type { StorageModule } from '../storage/index.ts';

export interface RecordingDeps {
  readonly storage: StorageModule;
  readonly notify: NotifyModule;
  readonly channel: ChannelModule;
}

export interface RecordingModule extends ReeltimeModule {}

export function createRecordingModule(_ctx: ServerContext, _deps: RecordingDeps): RecordingModule {
  return { name: 'recording', register() {}, close() {} };
}
