import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { guardedFetch, type OutboundPolicy } from './index.ts';

/** A throwaway self-signed certificate for the given subjectAltName (openssl is part of every supported setup). */
function selfSigned(san: string): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'reeltime-tls-'));
  try {
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
      '-subj', '/CN=reeltime-test', '-addext', `subjectAltName=${san}`,
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
    ], { stdio: 'ignore' });
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('https keeps verifying the certificate against the host name while connecting to the pinned address', async () => {
  const { key, cert } = selfSigned('DNS:hooks.rebind.invalid,IP:127.0.0.1');
  const server = createServer({ key, cert }, (req, res) => res.end(`host=${req.headers.host}`));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const pinned: OutboundPolicy = { allowPrivate: true, resolve: async () => [{ address: '127.0.0.1', family: 4 }] };
  try {
    const byName = await guardedFetch(`https://hooks.rebind.invalid:${port}/`, { ca: cert }, pinned);
    assert.equal(await byName.text(), `host=hooks.rebind.invalid:${port}`);
    const byIp = await guardedFetch(`https://127.0.0.1:${port}/`, { ca: cert }, pinned);
    assert.equal(byIp.status, 200);
    // Same address, a name the certificate does not cover: refused by TLS, not silently accepted.
    await assert.rejects(guardedFetch(`https://other.rebind.invalid:${port}/`, { ca: cert }, pinned), (e: unknown) => {
      assert.match(String((e as { code?: string }).code), /ERR_TLS_CERT_ALTNAME_INVALID/);
      return true;
    });
    // Without the CA the self-signed certificate is not trusted.
    await assert.rejects(guardedFetch(`https://127.0.0.1:${port}/`, {}, pinned), /self-signed|self signed/i);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
});
