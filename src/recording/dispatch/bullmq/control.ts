import { randomBytes } from 'node:crypto';
import type { Clock } from '../../../clock/index.ts';
import type { MessageBus } from '../../../redis/index.ts';
import { topics, type ControlMessage, type ControlReply } from './protocol.ts';

type Body = ControlMessage extends infer M ? (M extends ControlMessage ? Omit<M, 'id'> : never) : never;

/** Sent again at this interval until the recorder answers: a recorder taking over subscribes late. */
const RESEND_MS = 2000;

/**
 * Sends one control message to whichever recorder holds the session and waits for its reply. The message is sent
 * again until answered (the recorder handles each request ID once), and the call fails after `timeoutMs`.
 */
export async function sendControl(
  bus: MessageBus,
  clock: Clock,
  sid: string,
  body: Body,
  timeoutMs: number,
  /** A topic whose message also answers (a stop another recorder finished after a take-over). */
  answeredOn?: string,
): Promise<ControlReply> {
  const id = randomBytes(12).toString('hex');
  const msg = JSON.stringify({ ...body, id } as ControlMessage);
  let settle: (r: ControlReply) => void = () => undefined;
  const answered = new Promise<ControlReply>((resolve) => (settle = resolve));
  const onAnswer = (raw: string) => settle(JSON.parse(raw) as ControlReply);
  const unsubscribe = await bus.subscribe(topics.reply(id), onAnswer);
  const unsubscribeOther = answeredOn ? await bus.subscribe(answeredOn, onAnswer) : undefined;
  const give = clock.setTimeout(() => settle({ ok: false, message: `no recorder answered within ${timeoutMs / 1000} s` }), timeoutMs);
  let resend: ReturnType<Clock['setTimeout']> | undefined;
  const send = () => {
    void bus.publish(topics.control(sid), msg).catch(() => undefined);
    resend = clock.setTimeout(send, RESEND_MS);
  };
  send();
  try {
    return await answered;
  } finally {
    clock.clearTimeout(give);
    if (resend) clock.clearTimeout(resend);
    await unsubscribe();
    await unsubscribeOther?.();
  }
}
