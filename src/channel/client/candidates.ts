import { isIP } from 'node:net';
import { OutboundUrlError, resolveOutboundHost, type OutboundPolicy } from '../../net/index.ts';

/**
 * The answer of a WHEP source a user named, with only the ICE candidates whose address the outbound guard allows:
 * the URL was checked, but its answer could name any address for ICE to send to (an internal one, say). Candidates
 * with a host name (mDNS) are dropped too, as resolving them would be a lookup the guard did not make.
 */
export async function allowedCandidates(sdp: string, policy: OutboundPolicy, source: URL): Promise<{ readonly sdp: string; readonly dropped: number }> {
  const lines = sdp.split(/\r?\n/);
  const kept: string[] = [];
  let dropped = 0;
  for (const line of lines) {
    const address = line.startsWith('a=candidate:') ? line.split(' ')[4] : undefined;
    if (address !== undefined && !(await allowedAddress(address, policy, source))) {
      dropped++;
      continue;
    }
    kept.push(line);
  }
  return { sdp: kept.join('\r\n'), dropped };
}

async function allowedAddress(address: string, policy: OutboundPolicy, source: URL): Promise<boolean> {
  if (isIP(address) === 0) return false;
  try {
    await resolveOutboundHost(address, policy, source);
    return true;
  } catch (e) {
    if (e instanceof OutboundUrlError) return false;
    throw e;
  }
}
