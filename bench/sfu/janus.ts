// Janus 1.1.2 (Debian package `janus`) as the native SFU of bench:sfu: its VideoRoom plugin over the HTTP API,
// started from a generated configuration that loads only the VideoRoom plugin and the HTTP transport, binds the
// API to 127.0.0.1, gathers ICE candidates on loopback only (ice-lite, like reeltime's nodes) and has no STUN
// server: nothing leaves the machine.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnChild, stopChild } from '../../src/process/index.ts';
import { freePort } from '../../src/testing/ports.ts';
import { waitUntil } from '../../src/testing/wait.ts';

const LIB = '/usr/lib/x86_64-linux-gnu/janus';

export interface JanusServer {
  readonly api: string;
  readonly pid: number;
  close(): Promise<void>;
}

export async function startJanus(): Promise<JanusServer> {
  if (!existsSync(`${LIB}/plugins/libjanus_videoroom.so`)) throw new Error('Janus is not installed: bash scripts/setup.sh --bench (Debian package janus)');
  const dir = mkdtempSync(join(tmpdir(), 'reeltime-janus-'));
  const folder = (name: string, keep: string[]) => {
    const d = join(dir, name);
    mkdirSync(d);
    for (const f of keep) symlinkSync(join(LIB, name, f), join(d, f));
    return d;
  };
  const port = await freePort();
  writeFileSync(
    join(dir, 'janus.jcfg'),
    `general: {
  configs_folder = "${dir}"
  plugins_folder = "${folder('plugins', ['libjanus_videoroom.so'])}"
  transports_folder = "${folder('transports', ['libjanus_http.so'])}"
  events_folder = "${folder('events', [])}"
  loggers_folder = "${folder('loggers', [])}"
  debug_level = 3
  interface = "127.0.0.1"
  session_timeout = 120
}
media: {
  rtp_port_range = "20000-40000"
}
nat: {
  ice_lite = true
  ice_enforce_list = "lo"
  ignore_mdns = true
  nice_debug = false
}
events: {
  broadcast = false
}
`,
  );
  writeFileSync(
    join(dir, 'janus.transport.http.jcfg'),
    `general: {
  json = "compact"
  base_path = "/janus"
  http = true
  port = ${port}
  ip = "127.0.0.1"
  https = false
}
admin: {
  admin_http = false
  admin_https = false
}
`,
  );
  writeFileSync(join(dir, 'janus.plugin.videoroom.jcfg'), 'general: {\n}\n');
  const child = spawnChild('janus', ['-C', join(dir, 'janus.jcfg'), '-F', dir, '-N'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (b: Buffer) => (output += b.toString()));
  child.stderr?.on('data', (b: Buffer) => (output += b.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const api = `http://127.0.0.1:${port}/janus`;
  const close = async () => {
    await stopChild(child, exited, { signal: 'SIGTERM', graceMs: 3000 });
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitUntil(async () => {
      if (child.exitCode !== null) throw new Error(`janus exited with ${child.exitCode}:\n${output}`);
      return fetch(`${api}/info`).then((r) => r.ok, () => false);
    }, { timeoutMs: 30_000, intervalMs: 100, what: 'the Janus HTTP API' });
  } catch (e) {
    await close();
    throw e;
  }
  return { api, pid: child.pid!, close };
}

interface JanusMessage {
  readonly janus: string;
  readonly transaction?: string;
  readonly sender?: number;
  readonly data?: { readonly id: number };
  readonly plugindata?: { readonly data: Record<string, unknown> };
  readonly jsep?: { readonly type: 'offer' | 'answer'; readonly sdp: string };
  readonly error?: { readonly reason: string };
}

/** One Janus session: requests over HTTP, asynchronous events by long polling, matched by transaction. */
export class JanusSession {
  readonly #api: string;
  readonly #id: number;
  readonly #waiting = new Map<string, (m: JanusMessage) => void>();
  #open = true;

  private constructor(api: string, id: number) {
    this.#api = api;
    this.#id = id;
    void this.#poll();
  }

  static async create(api: string): Promise<JanusSession> {
    const r = await post(api, { janus: 'create' });
    return new JanusSession(api, r.data!.id);
  }

  async attach(plugin = 'janus.plugin.videoroom'): Promise<number> {
    return (await post(`${this.#api}/${this.#id}`, { janus: 'attach', plugin })).data!.id;
  }

  /** A plugin request answered at once (`success`), e.g. creating a room. */
  async request(handle: number, body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const r = await post(`${this.#api}/${this.#id}/${handle}`, { janus: 'message', body });
    if (r.janus !== 'success') throw new Error(`janus: ${JSON.stringify(r)}`);
    return r.plugindata!.data;
  }

  /** A plugin request answered later by an event (joins, configure, start), with its JSEP if any. */
  async message(handle: number, body: Record<string, unknown>, jsep?: { type: 'offer' | 'answer'; sdp: string }): Promise<JanusMessage> {
    const transaction = randomBytes(8).toString('hex');
    const event = new Promise<JanusMessage>((resolve) => this.#waiting.set(transaction, resolve));
    const ack = await post(`${this.#api}/${this.#id}/${handle}`, { janus: 'message', body, transaction, ...(jsep ? { jsep } : {}) }, transaction);
    if (ack.janus !== 'ack' && ack.janus !== 'event') throw new Error(`janus: ${JSON.stringify(ack)}`);
    const m = ack.janus === 'event' ? ack : await event;
    this.#waiting.delete(transaction);
    const error = m.plugindata?.data.error;
    if (error) throw new Error(`janus videoroom: ${String(error)}`);
    return m;
  }

  async #poll(): Promise<void> {
    while (this.#open) {
      try {
        const res = await fetch(`${this.#api}/${this.#id}?maxev=20&rid=${Date.now()}`);
        const body = (await res.json()) as JanusMessage | JanusMessage[];
        for (const m of Array.isArray(body) ? body : [body]) {
          if (m.transaction) this.#waiting.get(m.transaction)?.(m);
        }
      } catch {
        if (this.#open) await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  async destroy(): Promise<void> {
    this.#open = false;
    await post(`${this.#api}/${this.#id}`, { janus: 'destroy' }).catch(() => undefined);
  }
}

async function post(url: string, body: Record<string, unknown>, transaction = randomBytes(8).toString('hex')): Promise<JanusMessage> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ transaction, ...body }) });
  const m = (await res.json()) as JanusMessage;
  if (m.janus === 'error') throw new Error(`janus: ${m.error?.reason ?? JSON.stringify(m)}`);
  return m;
}
