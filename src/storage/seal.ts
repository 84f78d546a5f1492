import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Storage configs are persisted (so a restarted process can finish uploads) but hold customer secrets:
 * they are sealed with AES-256-GCM under a key derived from a deployment secret, so a database dump alone
 * does not reveal them.
 */
export function sealingKey(deploymentSecret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', deploymentSecret, 'reeltime', 'storage-config-v1', 32));
}

export function seal(plain: string, key: Buffer): string {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
  return `v1:${Buffer.concat([iv, c.getAuthTag(), body]).toString('base64')}`;
}

/** Undefined when the text was sealed with another key or is damaged. */
export function unseal(sealed: string, key: Buffer): string | undefined {
  if (!sealed.startsWith('v1:')) return undefined;
  try {
    const raw = Buffer.from(sealed.slice(3), 'base64');
    const d = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
    d.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([d.update(raw.subarray(28)), d.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}
