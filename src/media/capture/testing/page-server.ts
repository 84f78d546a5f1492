/**
 * A loopback HTTP server with the capture tests' pages: a solid colour, optionally a WebAudio tone, and a call
 * to `navigator.notifyReady()` once both run; optionally a background that changes colour on wall-clock time and
 * a flash with a beep at the same instant (A/V checks). Any other path answers 404.
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
  /** Calls notifyReady this long after its script starts (default at once). */
  readonly notifyReadyAfterMs?: number;
  /**
   * Once ready, the background is `colours[floor(Date.now() / periodMs) % n]`: it changes at wall-clock multiples
   * of the period, so a recording's timestamps say which colour each frame must show. `colour` until ready.
   */
  readonly cycle?: { readonly colours: readonly string[]; readonly periodMs: number };
  /**
   * Once a second of the page's audio clock, a beep (100 ms at this frequency) and a white square in the top-left
   * corner (FLASH_SQUARE, 200 ms, black otherwise) start at the same instant, the way a page would sync them.
   */
  readonly flashBeepHz?: number;
  /**
   * The benchmarks' busy page: a full-window canvas repainted on every animation frame (a shifting background,
   * twelve moving rectangles, the current time as text), so every captured frame differs.
   */
  readonly animation?: boolean;
  /** A playing `<video>` fed by a canvas of this size (its MediaStream), as a page showing a remote stream would. */
  readonly video?: { readonly width: number; readonly height: number };
}

/** The flash square: CSS pixels from the top-left corner (the capture renders at scale 1). */
export const FLASH_SQUARE = 80;

export function pageHtml(p: TestPage): string {
  const audio = p.toneHz || p.flashBeepHz ? 'const ctx = new AudioContext();' : '';
  const tone = p.toneHz
    ? `{ const o = ctx.createOscillator(); const g = ctx.createGain(); g.gain.value = ${p.flashBeepHz ? 0.3 : 0.5};
       o.frequency.value = ${p.toneHz}; o.connect(g); g.connect(ctx.destination); o.start(); }`
    : '';
  const mobile = p.mobileCheck
    ? `const m = /Mobile/.test(navigator.userAgent) && navigator.maxTouchPoints > 0 && innerWidth === ${p.mobileCheck.width} && innerHeight === ${p.mobileCheck.height};
       if (!m) document.body.style.background = ${JSON.stringify(p.mobileCheck.otherwise)};`
    : '';
  // Flash and beep both follow the audio clock (beeps scheduled ahead on it, the square painted from it), so the
  // only offset between them is the browser's and the capture's, which is what the A/V check measures.
  const flash = p.flashBeepHz
    ? `const sq = document.createElement('div'); sq.style.cssText = 'position:fixed;left:0;top:0;width:${FLASH_SQUARE}px;height:${FLASH_SQUARE}px;background:#000';
       document.body.append(sq);
       const bo = ctx.createOscillator(); const bg = ctx.createGain(); bg.gain.value = 0; bo.frequency.value = ${p.flashBeepHz};
       bo.connect(bg); bg.connect(ctx.destination); bo.start();
       let nextBeep = Math.ceil(ctx.currentTime) + 1;`
    : '';
  const video = p.video
    ? `{ const c = document.createElement('canvas'); c.width = ${p.video.width}; c.height = ${p.video.height};
       const g = c.getContext('2d'); const paint = () => { g.fillStyle = '#' + Math.floor(Math.random() * 4096).toString(16).padStart(3, '0'); g.fillRect(0, 0, c.width, c.height); };
       paint(); setInterval(paint, 100);
       const v = document.createElement('video'); v.autoplay = true; v.muted = true; v.style.cssText = 'width:160px;height:90px';
       v.srcObject = c.captureStream(10); document.body.append(v); }`
    : '';
  const animation = p.animation
    ? `{ const c = document.createElement('canvas'); c.width = innerWidth; c.height = innerHeight; c.style.display = 'block';
       document.body.style.overflow = 'hidden'; document.body.append(c); const g = c.getContext('2d');
       const draw = (t) => {
         g.fillStyle = 'hsl(' + (t / 20 % 360) + ',60%,30%)'; g.fillRect(0, 0, c.width, c.height);
         for (let i = 0; i < 12; i++) { g.fillStyle = 'hsl(' + (i * 30) + ',80%,60%)';
           g.fillRect((t / 5 + i * 97) % c.width, (i * 53 + t / 9) % c.height, 120, 80); }
         g.fillStyle = '#fff'; g.font = '48px sans-serif'; g.fillText(new Date().toISOString(), 40, 80);
         requestAnimationFrame(draw);
       };
       requestAnimationFrame(draw); }`
    : '';
  const cycle = p.cycle ? `const colours = ${JSON.stringify(p.cycle.colours)};` : '';
  const animate = p.flashBeepHz || p.cycle
    ? `function frame() {
         ${p.flashBeepHz ? `const now = ctx.currentTime;
         while (nextBeep < now + 2) { bg.gain.setValueAtTime(0.5, nextBeep); bg.gain.setValueAtTime(0, nextBeep + 0.1); nextBeep += 1; }
         sq.style.background = now > 1 && now % 1 < 0.2 ? '#fff' : '#000';` : ''}
         ${p.cycle ? `if (ready) document.body.style.background = colours[Math.floor(Date.now() / ${p.cycle.periodMs}) % colours.length];` : ''}
         requestAnimationFrame(frame);
       }
       requestAnimationFrame(frame);`
    : '';
  const notify = "ready = true; if (typeof navigator.notifyReady === 'function') navigator.notifyReady();";
  const ready =
    p.notifyReady === false ? '' : p.notifyReadyAfterMs ? `setTimeout(() => { ${notify} }, ${p.notifyReadyAfterMs});` : notify;
  return `<!doctype html><html><head><meta name="viewport" content="width=device-width"></head>
<body style="margin:0;height:100vh;background:${p.colour}"><script>
let ready = false;
${audio}
${tone}
${mobile}
${flash}
${video}
${animation}
${cycle}
${animate}
${p.webgl ? "document.createElement('canvas').getContext('webgl');" : ''}
${ready}
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
