/** Rules of subscribe/unsubscribe uid lists (docs/recording-api.md, "accepted forms"). */
import { ALL_STREAMS } from './primitives.ts';
import { fail } from './schema.ts';

/** `"#allstream#"` means every user, so it is the list's only entry or it is refused. */
export function allStreamsAlone(list: readonly string[], path: string): void {
  if (list.length > 1 && list.includes(ALL_STREAMS)) fail(path, `"${ALL_STREAMS}" must be the only entry of the list`);
}

/** The distinct uids named by lists; the wildcard names no particular uid and is not counted. */
export function distinctUids(...lists: (readonly string[] | undefined)[]): Set<string> {
  const out = new Set<string>();
  for (const l of lists) for (const u of l ?? []) if (u !== ALL_STREAMS) out.add(u);
  return out;
}
