/**
 * The addresses the browser is held to (docs/recording-web.md, "The page URL"): the page URL checked again by the
 * outbound guard, just before the browser opens it (start's check ran in the API process, maybe long ago: a
 * hand-over after a restart), and `recording.webPageHosts`, the hosts the operator lets pages load from, pinned
 * the same way.
 */
import type { Logger } from '../../log/index.ts';
import type { PinnedHost } from '../../media/capture/index.ts';
import { resolveOutbound, type OutboundPolicy } from '../../net/index.ts';

export interface PinnedPage {
  readonly pinnedHosts: PinnedHost[];
  /** `*` among the hosts: the page may reach any public host. */
  readonly openNetwork: boolean;
}

/** Throws when the guard refuses the page URL; a host it refuses stays unreachable for this page (logged). */
export async function pinPageHosts(url: string, policy: OutboundPolicy | undefined, hosts: readonly string[], log: Logger): Promise<PinnedPage> {
  const pinnedHosts: PinnedHost[] = [];
  if (!policy) return { pinnedHosts, openNetwork: false };
  const page = await resolveOutbound(url, policy);
  pinnedHosts.push({ host: page.url.hostname, address: page.address });
  // Scripts from a CDN, the page's API: a host that is refused or does not resolve is left out; the page still records.
  for (const host of hosts) {
    if (host === '*' || pinnedHosts.some((p) => p.host === host)) continue;
    try {
      const target = await resolveOutbound(`https://${host}/`, policy);
      pinnedHosts.push({ host: target.url.hostname, address: target.address });
    } catch (e) {
      log.warn({ host, err: (e as Error).message }, 'recording.webPageHosts: host not pinned');
    }
  }
  return { pinnedHosts, openNetwork: hosts.includes('*') };
}
