/**
 * The start-time half of the outbound guard for storage (the connect-time half is in uploaders/factory.ts): the
 * one host a customer names outright, vendor 11's `extensionParams.endpoint`, must be public when private targets
 * are refused. Vendor hosts (`<bucket>.<regional endpoint>`, `<account>.blob.core.windows.net`) are fixed names of
 * the vendor's domain once the bucket and account names pass the vendor's rules (validateStorageConfig); they are
 * checked when the connection is made. Operator endpoint overrides and the local bucket are not customer input.
 */
import { OutboundUrlError, resolveOutboundHost, type OutboundPolicy } from '../net/index.ts';
import type { StorageSettings } from './config.ts';
import { endpointUrl, type StorageConfig } from './storage-config.ts';
import type { StorageConfigProblem } from './vendors/index.ts';

export async function checkStorageTarget(
  storage: StorageConfig,
  settings: StorageSettings,
  policy: OutboundPolicy,
): Promise<StorageConfigProblem | undefined> {
  if (policy.allowPrivate || settings.routeAllToLocal || storage.vendor !== 11 || settings.endpoints[11] !== undefined) return undefined;
  const raw = endpointUrl(storage.extensionParams?.endpoint ?? '');
  if (raw === undefined) return undefined; // validateStorageConfig refused it already
  const url = new URL(raw);
  const field = 'storageConfig.extensionParams.endpoint';
  try {
    await resolveOutboundHost(url.hostname, policy, url);
    return undefined;
  } catch (e) {
    if (!(e instanceof OutboundUrlError)) throw e;
    // Neither the resolved address nor the range is echoed: the answer must not map the operator's network.
    const rule =
      e.refusal === 'unresolvable'
        ? 'host name could not be resolved'
        : 'must be a public address (private, loopback and other special-purpose addresses are refused)';
    return { field, reason: `${field} ${rule}` };
  }
}
