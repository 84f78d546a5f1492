/**
 * One PulseAudio daemon per capture, with its own runtime folder and socket and a single null sink: the
 * capture's browser is the only client that knows the socket, so no other session can play into it or hear it.
 * A private daemon also runs as root here (it warns, and works), needs no system-wide configuration and goes
 * away with the capture (docs/recording-web.md, "Sound").
 */
import { connect } from 'node:net';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { SupervisedChild } from './supervised-child.ts';

export const PULSEAUDIO_BIN = 'pulseaudio';
export const SINK_NAME = 'reeltime';
const START_TIMEOUT_MS = 15_000;

export interface SoundServer {
  /** `unix:/…/native`, for PULSE_SERVER and ffmpeg's `-server`. */
  readonly server: string;
  readonly sink: string;
  /** The source that carries what is played into the sink. */
  readonly monitor: string;
  readonly process: SupervisedChild;
  /** Environment for our own clients of the server (the monitor reader): nothing of ours, files kept in `dir`. */
  readonly clientEnv: NodeJS.ProcessEnv;
}

function canConnect(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(path);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/** Starts the daemon with its files under `dir` (created, mode 0700) and waits until it accepts clients. */
export async function startSoundServer(dir: string, sampleRate: number): Promise<SoundServer> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const socket = join(dir, 'native');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: dir,
    XDG_RUNTIME_DIR: dir,
    XDG_CONFIG_HOME: join(dir, 'config'),
    PULSE_RUNTIME_PATH: dir,
    PULSE_STATE_PATH: join(dir, 'state'),
  };
  const proc = new SupervisedChild(
    'sound',
    PULSEAUDIO_BIN,
    [
      '-n', // no default script: only the modules below
      '--daemonize=no',
      '--exit-idle-time=-1',
      '--use-pid-file=no',
      '--disable-shm=yes',
      '--log-target=stderr',
      '--log-level=error',
      // The sink first: once the socket below exists, the sink does too.
      '-L', `module-null-sink sink_name=${SINK_NAME} rate=${sampleRate} channels=2`,
      '-L', `module-native-protocol-unix socket=${socket} auth-anonymous=1`,
    ],
    { env, cwd: dir },
  );
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!(existsSync(socket) && (await canConnect(socket)))) {
    if (!proc.running || Date.now() > deadline) {
      const e = await proc.stop(1000);
      throw new Error(`PulseAudio did not start (${e.code ?? e.signal}): ${e.stderrTail.trim().slice(-300)}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const clientEnv = { PATH: process.env.PATH, HOME: dir, XDG_RUNTIME_DIR: dir, XDG_CONFIG_HOME: join(dir, 'config') };
  return { server: `unix:${socket}`, sink: SINK_NAME, monitor: `${SINK_NAME}.monitor`, process: proc, clientEnv };
}
