// `reeltime publish`: a synthetic colour + tone stream into a channel over WHIP (ffmpeg + a werift peer).
import { parseArgs } from 'node:util';
import { buildRtcTokenWithUid } from '@reeltime/token';
import { COLOR, startSyntheticPublisher } from '../../channel/index.ts';
import { loadConfig } from '../../server/index.ts';
import { UsageError, type CommandRunner } from '../command.ts';

const USAGE = `usage: reeltime publish --channel C --uid N [--app-id A] [--token T] [--color red] [--tone 440]
                        [--codec vp8|h264] [--seconds S] [--server URL] [--profile communication|live]
                        [--width 640 --height 360 --fps 15] [--simulcast]
Without --token a publisher token is built from the configured app certificate.
--simulcast sends the video twice (rids h and l): the picture and one at half its size.
Without --seconds it publishes until interrupted (Ctrl-C leaves the channel).`;

const OPTIONS = {
  'app-id': { type: 'string' },
  channel: { type: 'string' },
  uid: { type: 'string' },
  token: { type: 'string' },
  color: { type: 'string', default: 'red' },
  tone: { type: 'string', default: '440' },
  codec: { type: 'string', default: 'vp8' },
  seconds: { type: 'string' },
  server: { type: 'string' },
  profile: { type: 'string' },
  width: { type: 'string', default: '640' },
  height: { type: 'string', default: '360' },
  fps: { type: 'string', default: '15' },
  simulcast: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

function int(name: string, v: string | undefined, min: number, max: number): number {
  if (v === undefined || !/^\d+$/.test(v) || Number(v) < min || Number(v) > max) {
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}\n${USAGE}`);
  }
  return Number(v);
}

export const publish: CommandRunner = {
  async run(args) {
    let values;
    try {
      ({ values } = parseArgs({ args: [...args], options: OPTIONS, strict: true }));
    } catch (e) {
      throw new UsageError(`${(e as Error).message}\n${USAGE}`);
    }
    if (values.help) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    if (!values.channel) throw new UsageError(`--channel is required\n${USAGE}`);
    const uid = int('uid', values.uid, 1, 0xffffffff);
    if (values.codec !== 'vp8' && values.codec !== 'h264') throw new UsageError(`--codec must be vp8 or h264\n${USAGE}`);
    if (!COLOR.test(values.color)) throw new UsageError(`--color must be a colour name or #rrggbb\n${USAGE}`);
    if (values.profile !== undefined && values.profile !== 'communication' && values.profile !== 'live') {
      throw new UsageError(`--profile must be communication or live\n${USAGE}`);
    }
    const seconds = values.seconds === undefined ? undefined : int('seconds', values.seconds, 1, 86400);
    const config = loadConfig();
    const appId = values['app-id'] ?? config.appId;
    const token =
      values.token ?? buildRtcTokenWithUid(appId, config.appCertificate, values.channel, uid, 1, (seconds ?? 86400) + 60, (seconds ?? 86400) + 60);
    const baseUrl = values.server ?? config.publicUrl;
    const pub = await startSyntheticPublisher({
      baseUrl,
      appId,
      cname: values.channel,
      uid,
      token,
      color: values.color,
      toneHz: int('tone', values.tone, 20, 20000),
      codec: values.codec,
      width: int('width', values.width, 16, 1920),
      height: int('height', values.height, 16, 1080),
      fps: int('fps', values.fps, 1, 60),
      ...(values.profile ? { profile: values.profile as 'communication' | 'live' } : {}),
      ...(values.simulcast ? { simulcast: true } : {}),
    }).catch((e: Error) => {
      throw new UsageError(`could not publish to ${baseUrl}: ${e.message}`);
    });
    try {
      await pub.ready;
    } catch (e) {
      await pub.kill();
      process.stderr.write(`reeltime publish: the connection to ${baseUrl} did not come up: ${(e as Error).message}\n`);
      return 1;
    }
    process.stdout.write(`publishing uid ${uid} to channel "${values.channel}" (${values.codec}${values.simulcast ? ', simulcast' : ''}, ${values.color}, ${values.tone} Hz)\n`);
    await new Promise<void>((resolve) => {
      const done = () => resolve();
      process.once('SIGINT', done);
      process.once('SIGTERM', done);
      if (seconds !== undefined) setTimeout(done, seconds * 1000);
      pub.exited.then(done, done);
    });
    await pub.stop();
    return 0;
  },
};
