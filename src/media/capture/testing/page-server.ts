/**
 * A loopback HTTP server with the capture tests' pages: a solid colour, optionally a WebAudio tone, and a call
 * to `navigator.notifyReady()` once both run. Any other path answers 404.
 */
import { createServer, type Server } from 'node:http';

export interface TestPage {
  /** CSS colour of the whole page. */
  readonly colour: string;
  /** Tone frequency; silent when absent. */
  readonly toneHz?: number;
  /** Colour shown instead when the page is not in mobile emulation at exactly this viewport. */
  readonly mobileCheck?: { readonly width: number; readonly height: number; readonly otherwise: string };
  /** False: the page never calls `navigator.notifyReady()` (readyTimeout tests). */
  readonly notifyReady?: boolean;
  /** The page asks a canvas for a WebGL context. */
  readonly webgl?: boolean;
}

export function pageHtml(p: TestPage): string {
  const tone = p.toneHz
    ? `const ctx = new AudioContext(); const o = ctx.createOscillator(); const g = ctx.createGain(); g.gain.value = 0.5;
       o.frequency.value = ${p.toneHz}; o.connect(g); g.connect(ctx.destination); o.start();`
    : '';
  const mobile = p.mobileCheck
    ? `const m = /Mobile/.test(navigator.userAgent) && navigator.maxTouchPoints > 0 && innerWidth === ${p.mobileCheck.width} && innerHeight === ${p.mobileCheck.height};
       if (!m) document.body.style.background = ${JSON.stringify(p.mobileCheck.otherwise)};`
    : '';
  return `<!doctype html><html><head><meta name="viewport" content="width=device-width"></head>
<body style="margin:0;height:100vh;background:${p.colour}"><script>
${tone}
${mobile}
${p.webgl ? "document.createElement('canvas').getContext('webgl');" : ''}
${p.notifyReady === false ? '' : "if (typeof navigator.notifyReady === 'function') navigator.notifyReady();"}
</script></body></html>`;
}

export interface PageServer {
  readonly origin: string;
  close(): Promise<void>;
}

/** Serves each page at `/<name>`. */
export async function startPageServer(pages: Record<string, TestPage>): Promise<PageServer> {
  const server: Server = createServer((req, res) => {
    const page = pages[(req.url ?? '/').slice(1)];
    if (!page) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(pageHtml(page));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise((r) => server.close(() => r())),
  };
}
