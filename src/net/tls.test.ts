import assert from 'node:assert/strict';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { selfSignedCertificate } from '../testing/index.ts';
import { guardedFetch, type OutboundPolicy } from './index.ts';

test('https keeps verifying the certificate against the host name while connecting to the pinned address', async () => {
  const { key, cert } = selfSignedCertificate('DNS:hooks.rebind.invalid,IP:127.0.0.1');
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
