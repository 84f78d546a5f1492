import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join, normalize } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { launchTestChromium } from '../../testing/chromium.ts';
import { startTestServer, waitUntil } from '../../testing/index.ts';
import { NodeWebSocket } from '../gateway/test-helpers.ts';
import { ChatTokenSession, type TextMessage } from './index.ts';

const CHAT_DIR = new URL('..', import.meta.url).pathname;

/** Serves src/chat/** as browser ES modules (TypeScript stripped), so the page runs the SDK's own sources. */
async function serveSdk(): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/') {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>chat sdk</title>');
      return;
    }
    const file = normalize(join(CHAT_DIR, path));
    if (!file.startsWith(CHAT_DIR) || !file.endsWith('.ts')) return void res.writeHead(404).end();
    try {
      const out = ts.transpileModule(readFileSync(file, 'utf8'), {
        compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, verbatimModuleSyntax: true },
      });
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(out.outputText);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}` };
}

test('the SDK runs in a browser: fetches a token cross-origin, logs in, exchanges messages with a Node client', async () => {
  const s = await startTestServer();
  const sdk = await serveSdk();
  const browser = await launchTestChromium();
  const node = new ChatTokenSession({ tokenServerUrl: s.url, gatewayUrl: `${s.url.replace(/^http/, 'ws')}/chat/ws`, user: 'nodeuser', WebSocket: NodeWebSocket });
  const received: TextMessage[] = [];
  node.onTextMessage((m) => received.push(m));
  try {
    await node.start();
    const page = browser.context.pages()[0] ?? (await browser.context.newPage());
    await page.goto(sdk.url);
    const got = await page.evaluate(
      async ({ tokenServerUrl, gatewayUrl }) => {
        const { ChatTokenSession } = await import('/sdk/index.ts' as string);
        const messages: { from: string; text: string }[] = [];
        const session = new ChatTokenSession({ tokenServerUrl, gatewayUrl, user: 'browseruser' });
        session.onTextMessage((m: { from: string; text: string }) => messages.push(m));
        const info = await session.start();
        await session.sendTextMessage('nodeuser', `hello from ${navigator.userAgent.includes('Chrome') ? 'chromium' : 'a browser'}`);
        (globalThis as Record<string, unknown>).chat = { session, messages };
        return info.user;
      },
      { tokenServerUrl: s.url, gatewayUrl: `${s.url.replace(/^http/, 'ws')}/chat/ws` },
    );
    assert.equal(got, 'browseruser');
    await waitUntil(() => received.length === 1, { what: 'node receives from the browser' });
    assert.deepEqual([received[0]!.from, received[0]!.text], ['browseruser', 'hello from chromium']);
    await node.sendTextMessage('browseruser', 'hello browser');
    const inBrowser = await page.waitForFunction(
      () => ((globalThis as unknown as Record<string, { messages: { text: string }[] }>).chat?.messages ?? []).map((m) => m.text).join('|'),
      undefined,
      { timeout: 20_000 },
    );
    assert.equal(await inBrowser.jsonValue(), 'hello browser');
  } finally {
    node.stop();
    await browser.close();
    sdk.server.close();
    await s.close();
  }
});
