/** The union of the modes' settings and the one builder the dispatch boundary calls (pure: no clock, no I/O). */
import { individualSettings, type IndividualSettings } from './individual.ts';
import { mixSettings, type MixSettings } from './mix.ts';
import type { SettingsSource } from './source.ts';
import { webSettings, type WebSettings } from './web.ts';

export type RecorderSettings = IndividualSettings | MixSettings | WebSettings;

/** The settings of one session, for the recorder of its mode. */
export function recorderSettings(s: SettingsSource): RecorderSettings {
  switch (s.mode) {
    case 'individual':
      return individualSettings(s);
    case 'mix':
      return mixSettings(s);
    case 'web':
      return webSettings(s);
  }
}

/** The settings of a task given to the recorder of `mode`; throws if the dispatcher sent another mode's. */
export function settingsFor<M extends RecorderSettings['mode']>(settings: RecorderSettings, mode: M): Extract<RecorderSettings, { mode: M }> {
  if (settings.mode !== mode) throw new Error(`settings.mode: a ${settings.mode} session given to the ${mode} recorder`);
  return settings as Extract<RecorderSettings, { mode: M }>;
}
