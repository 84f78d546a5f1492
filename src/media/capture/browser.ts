/**
 * The capture's Chromium: headful, kiosk, on the capture's display and sound server, with a fresh profile, no
 * traffic beyond loopback on its own behalf, and driven over a DevTools pipe. It tells the capture when the page
 * calls `navigator.notifyReady()` (provided before any page script), what the main document answered, and when
 * the renderer crashed (docs/recording-web.md, "Browser").
 */
import type { Readable, Writable } from 'node:stream';
import { CdpPipe, type CdpEvent, type CdpParams } from './cdp.ts';
import type { PinnedHost } from './options.ts';
import type { CaptureEventListener } from './events.ts';
import { SupervisedChild } from './supervised-child.ts';

export interface BrowserOptions {
  readonly chromiumPath: string;
  readonly display: string;
  readonly pulseServer: string;
  readonly sink: string;
  readonly width: number;
  readonly height: number;
  readonly mobile: boolean;
  /** Fresh, empty folder for the profile and the browser's HOME; the caller deletes it. */
  readonly profileDir: string;
  /** Hosts the browser resolves to their approved addresses; none: only 127.0.0.1 (hostResolverRules). */
  readonly pinnedHosts: readonly PinnedHost[];
  /** Other names resolve through the system (the operator allowed any host). */
  readonly openNetwork: boolean;
}

export interface LoadResult {
  /** HTTP status of the main document, when one arrived. */
  readonly status?: number;
  /** Chromium's `net::ERR_…` text when the document could not be loaded. */
  readonly errorText?: string;
}

/** The name of the DevTools binding behind `navigator.notifyReady`. */
const READY_BINDING = '__reeltimeNotifyReady';

/**
 * Runs before any script of every document: `navigator.notifyReady()` calls the binding. Not writable or
 * configurable, so a page script cannot replace it by accident.
 */
const NOTIFY_READY_SCRIPT = `(() => {
  const call = globalThis[${JSON.stringify(READY_BINDING)}];
  if (typeof call !== 'function') return;
  Object.defineProperty(Navigator.prototype, 'notifyReady', { value: function notifyReady() { call(''); }, writable: false, configurable: false });
})();`;

/** The binding through which the page reports a feature web mode does not record (event 72). */
const CAPABILITY_BINDING = '__reeltimeCapabilityLimit';

/** The largest video source a page may show (the hosted service's limit since 2021, docs/recording-web.md). */
export const MAX_VIDEO_SOURCE = { long: 1920, short: 1080 } as const;

/**
 * Runs before any script of every document and reports, once per document, what web mode does not record
 * (docs/recording-web.md): a canvas asked for a WebGL context (`WebGL`; the context is still returned, the session
 * decides), and a `<video>` whose source is larger than MAX_VIDEO_SOURCE (`resolution`). Media events do not
 * bubble, so the video check listens in the capture phase on the window: `loadedmetadata` and `resize` fire on
 * every element with a new intrinsic size, files and MediaStreams alike.
 */
const CAPABILITY_SCRIPT = `(() => {
  const call = globalThis[${JSON.stringify(CAPABILITY_BINDING)}];
  if (typeof call !== 'function') return;
  const reported = new Set();
  const report = (type) => { if (!reported.has(type)) { reported.add(type); call(type); } };
  const webgl = new Set(['webgl', 'webgl2', 'experimental-webgl']);
  for (const C of [globalThis.HTMLCanvasElement, globalThis.OffscreenCanvas]) {
    if (!C) continue;
    const original = C.prototype.getContext;
    Object.defineProperty(C.prototype, 'getContext', {
      value: function getContext(type, ...rest) {
        if (webgl.has(String(type))) report('WebGL');
        return original.call(this, type, ...rest);
      },
      writable: false,
      configurable: false,
    });
  }
  if (typeof window === 'undefined' || typeof HTMLVideoElement === 'undefined') return;
  const checkVideo = (e) => {
    const v = e.target;
    if (!(v instanceof HTMLVideoElement)) return;
    const long = Math.max(v.videoWidth, v.videoHeight);
    const short = Math.min(v.videoWidth, v.videoHeight);
    if (long > ${MAX_VIDEO_SOURCE.long} || short > ${MAX_VIDEO_SOURCE.short}) report('resolution');
  };
  window.addEventListener('loadedmetadata', checkVideo, true);
  window.addEventListener('resize', checkVideo, true);
})();`;

/**
 * Chromium's `--host-resolver-rules`: the first MAP rule matching a host (names and address literals alike)
 * rewrites it, `~NOTFOUND` fails it, EXCLUDE exempts it. Pinned hosts (the page's, and those the operator lists in
 * `recording.webPageHosts`) resolve to their approved addresses without any lookup (so a second DNS answer cannot
 * point the browser elsewhere) and every other name and literal fails, loopback included, unless the operator
 * opened the network (`*`); without pins only 127.0.0.1 is reachable. Rules match an IPv6 literal without its
 * brackets, and a MAP target needs them.
 */
export function hostResolverRules(pins: readonly PinnedHost[], openNetwork = false): string {
  if (pins.length === 0) return openNetwork ? '' : 'MAP * ~NOTFOUND, EXCLUDE 127.0.0.1';
  const rules = pins.map((pin) => {
    const host = pin.host.replace(/^\[(.*)\]$/, '$1');
    const target = pin.address.includes(':') ? `[${pin.address}]` : pin.address;
    return `MAP ${host} ${target}`;
  });
  if (!openNetwork) rules.push('MAP * ~NOTFOUND');
  return rules.join(', ');
}

function resolverRulesArg(o: BrowserOptions): string[] {
  const rules = hostResolverRules(o.pinnedHosts, o.openNetwork);
  return rules === '' ? [] : [`--host-resolver-rules=${rules}`];
}

export function chromiumArgs(o: BrowserOptions): string[] {
  return [
    // Root here; the sandbox needs user namespaces the recorder host may not have. Isolation comes from the
    // per-session profile, display, sound server and an environment without the recorder's secrets.
    '--no-sandbox',
    '--kiosk', '--window-position=0,0', `--window-size=${o.width},${o.height}`, '--force-device-scale-factor=1',
    '--autoplay-policy=no-user-gesture-required',
    '--remote-debugging-pipe',
    `--user-data-dir=${o.profileDir}`,
    // Nothing goes out on the browser's own account, and it reaches only the approved addresses (hostResolverRules).
    '--no-first-run', '--no-default-browser-check', '--disable-background-networking', '--disable-component-update',
    '--disable-sync', '--disable-default-apps', '--disable-extensions', '--disable-breakpad', '--disable-domain-reliability',
    '--disable-client-side-phishing-detection', '--metrics-recording-only', '--password-store=basic',
    ...resolverRulesArg(o),
    '--disable-features=Translate,MediaRouter,OptimizationHints,AutofillServerCommunication,DialMediaRouteProvider',
    // The page is what we record: never throttle it for being "in the background".
    '--disable-background-timer-throttling', '--disable-backgrounding-occluded-windows', '--disable-renderer-backgrounding',
    '--disable-gpu', '--hide-scrollbars', '--noerrdialogs', '--disable-session-crashed-bubble',
    'about:blank',
  ];
}

/** A phone-like user agent from the browser's own: the same engine and version, an Android platform. */
export function mobileUserAgent(desktop: string): string {
  const ua = desktop.replace(/\(X11; [^)]*\)/, '(Linux; Android 10; K)').replace(/HeadlessChrome/, 'Chrome');
  return / Mobile /.test(ua) ? ua : ua.replace(/ Safari\//, ' Mobile Safari/');
}

export class CapturedBrowser {
  private sessionId = '';
  private mainFrameId = '';
  private lastUrl = 'about:blank';
  private crashed = false;
  /** Main-document status per loader (navigation), filled by Network.responseReceived. */
  private readonly statusByLoader = new Map<string, number>();

  private constructor(
    readonly process: SupervisedChild,
    private readonly options: BrowserOptions,
    private readonly cdp: CdpPipe,
    private readonly onEvent: CaptureEventListener,
  ) {}

  static async launch(o: BrowserOptions, onEvent: CaptureEventListener): Promise<CapturedBrowser> {
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: o.profileDir,
      XDG_CONFIG_HOME: `${o.profileDir}/config`,
      XDG_CACHE_HOME: `${o.profileDir}/cache`,
      DISPLAY: o.display,
      PULSE_SERVER: o.pulseServer,
      PULSE_SINK: o.sink,
      LANG: 'C.UTF-8',
      TZ: 'UTC',
    };
    const proc = new SupervisedChild('browser', o.chromiumPath, chromiumArgs(o), {
      env,
      stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'],
      stderrLimit: 8192,
    });
    const cdp = new CdpPipe(proc.child.stdio[3] as Writable, proc.child.stdio[4] as Readable);
    void proc.exited.then(() => cdp.close(new Error('browser exited')));
    const browser = new CapturedBrowser(proc, o, cdp, onEvent);
    try {
      await browser.attach(o);
      return browser;
    } catch (err) {
      await browser.close();
      throw err;
    }
  }

  private async attach(o: BrowserOptions): Promise<void> {
    this.cdp.onEvent((e) => this.handle(e));
    await this.attachPage(await this.pageTarget(), o);
  }

  /** Attaches to a page target and gives it the binding, the notifyReady script and the emulation. */
  private async attachPage(targetId: string, o: BrowserOptions): Promise<void> {
    const attached = await this.cdp.send('Target.attachToTarget', { targetId, flatten: true });
    this.sessionId = String(attached.sessionId);
    this.mainFrameId = targetId;
    this.crashed = false;
    const s = (method: string, params: CdpParams = {}) => this.cdp.send(method, params, this.sessionId);
    await s('Runtime.addBinding', { name: READY_BINDING });
    await s('Page.addScriptToEvaluateOnNewDocument', { source: NOTIFY_READY_SCRIPT });
    await s('Runtime.addBinding', { name: CAPABILITY_BINDING });
    await s('Page.addScriptToEvaluateOnNewDocument', { source: CAPABILITY_SCRIPT });
    await Promise.all([s('Page.enable'), s('Network.enable'), s('Inspector.enable'), s('Runtime.enable')]);
    if (o.mobile) {
      const version = await this.cdp.send('Browser.getVersion');
      await s('Emulation.setUserAgentOverride', { userAgent: mobileUserAgent(String(version.userAgent)), platform: 'Android' });
      await s('Emulation.setDeviceMetricsOverride', {
        width: o.width, height: o.height, deviceScaleFactor: 1, mobile: true, screenWidth: o.width, screenHeight: o.height,
      });
      await s('Emulation.setTouchEmulationEnabled', { enabled: true, maxTouchPoints: 5 });
    }
  }

  /**
   * A crashed page answers no more navigations over its session: open a fresh page in the kiosk window (it
   * takes the whole screen), set it up like the first, and close the dead one.
   */
  private async replaceCrashedPage(): Promise<void> {
    const dead = this.mainFrameId;
    const created = await this.cdp.send('Target.createTarget', { url: 'about:blank' });
    await this.attachPage(String(created.targetId), this.options);
    await this.cdp.send('Target.closeTarget', { targetId: dead }).catch(() => undefined);
  }

  /** The kiosk window's page; it may take a moment to appear after the pipe opens. */
  private async pageTarget(): Promise<string> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const r = await this.cdp.send('Target.getTargets');
      const infos = (r.targetInfos ?? []) as { targetId: string; type: string }[];
      const page = infos.find((t) => t.type === 'page');
      if (page) return page.targetId;
      if (Date.now() > deadline) throw new Error('Chromium opened no page');
      await new Promise((res) => setTimeout(res, 100));
    }
  }

  private handle(e: CdpEvent): void {
    if (e.sessionId !== this.sessionId) return;
    const p = e.params;
    switch (e.method) {
      case 'Runtime.bindingCalled':
        if (p.name === READY_BINDING) this.onEvent({ kind: 'page-ready', atMs: Date.now() });
        else if (p.name === CAPABILITY_BINDING && (p.payload === 'WebGL' || p.payload === 'resolution')) {
          this.onEvent({ kind: 'capability-limit', limitType: p.payload });
        }
        break;
      case 'Network.responseReceived': {
        const response = p.response as { url: string; status: number };
        if (p.type !== 'Document' || p.frameId !== this.mainFrameId) break;
        this.statusByLoader.set(String(p.loaderId), response.status);
        this.onEvent({ kind: 'document-status', url: response.url, status: response.status });
        break;
      }
      case 'Inspector.targetCrashed':
        this.crashed = true;
        this.onEvent({ kind: 'renderer-crashed' });
        break;
    }
  }

  /** Opens `url` in the page; resolves once the main document answered or failed. */
  async load(url: string): Promise<LoadResult> {
    this.lastUrl = url;
    if (this.crashed) await this.replaceCrashedPage();
    const r = await this.cdp.send('Page.navigate', { url }, this.sessionId);
    if (typeof r.errorText === 'string' && r.errorText !== '') {
      this.onEvent({ kind: 'load-failed', url, errorText: r.errorText });
      return { errorText: r.errorText };
    }
    const status = this.statusByLoader.get(String(r.loaderId));
    return status === undefined ? {} : { status };
  }

  /** Loads the last URL again (also brings a crashed renderer back). */
  reload(): Promise<LoadResult> {
    return this.load(this.lastUrl);
  }

  /** Crashes the page's renderer (tests of the crash path); Page.crash never answers, so no wait for a reply. */
  crashRenderer(): void {
    void this.cdp.send('Page.crash', {}, this.sessionId).catch(() => undefined);
  }

  /** Closes the browser (politely over DevTools, then by signal) and waits for it to exit. */
  async close(): Promise<void> {
    this.process.expectExit();
    if (this.process.running) {
      await Promise.race([this.cdp.send('Browser.close').catch(() => undefined), new Promise((r) => setTimeout(r, 2000))]);
      const gone = await Promise.race([this.process.exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 3000))]);
      if (!gone) await this.process.stop(3000);
    }
    this.cdp.close();
  }
}
