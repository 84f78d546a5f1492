/**
 * A recording rule as the API takes it, checked before it is stored, and the cname patterns it matches. Pure.
 */
import { checkSceneMode, RECORDING_MODES, validateStartClientRequest, ValidationError, type RecordingMode, type Scene, type StartClientRequest } from '../recording/index.ts';

/** The channel-name characters of the recording API, plus `*` (any run of them, empty included). */
const PATTERN = /^[a-zA-Z0-9 !#$%&()+\-:;<=.>?@[\]^_{}|~,*]{1,1024}$/;

export interface RuleInput {
  readonly cname: string;
  readonly mode: RecordingMode;
  readonly uid: string | undefined;
  readonly scene: Scene;
  readonly clientRequest: StartClientRequest;
}

/** A refusal naming the field, as the recording API's code 2 does. */
export class RuleInputError extends Error {
  override readonly name = 'RuleInputError';
}

/** Whether `cname` matches `pattern` (`*` any run of characters; everything else literal). */
export function matchesCname(pattern: string, cname: string): boolean {
  const parts = pattern.split('*');
  if (parts.length === 1) return pattern === cname;
  const first = parts[0]!;
  const last = parts.at(-1)!;
  if (!cname.startsWith(first) || cname.length < first.length + last.length || !cname.endsWith(last)) return false;
  let at = first.length;
  const end = cname.length - last.length;
  for (const middle of parts.slice(1, -1)) {
    const found = cname.indexOf(middle, at);
    if (found < 0 || found + middle.length > end) return false;
    at = found + middle.length;
  }
  return true;
}

const UID = /^[1-9][0-9]{0,9}$/;

export function parseRuleInput(body: unknown): RuleInput {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new RuleInputError('the body must be a JSON object');
  const b = body as Record<string, unknown>;
  const known = new Set(['cname', 'mode', 'uid', 'scene', 'clientRequest']);
  for (const k of Object.keys(b)) if (!known.has(k)) throw new RuleInputError(`${k}: unknown field (cname, mode, uid, scene, clientRequest)`);
  if (typeof b.cname !== 'string' || !PATTERN.test(b.cname)) {
    throw new RuleInputError('cname: a channel name of 1 to 1024 of the recording API\'s characters, where * stands for any run of them');
  }
  if (typeof b.mode !== 'string' || !(RECORDING_MODES as readonly string[]).includes(b.mode)) {
    throw new RuleInputError(`mode: one of ${RECORDING_MODES.join(', ')}`);
  }
  const mode = b.mode as RecordingMode;
  if (b.uid !== undefined && (typeof b.uid !== 'string' || !UID.test(b.uid) || Number(b.uid) > 0xffffffff)) {
    throw new RuleInputError('uid: the recording uid as decimal text, 1 to 4294967295 (omit it for a random free uid per recording)');
  }
  const scene = b.scene ?? (mode === 'web' ? 1 : 0);
  if (scene !== 0 && scene !== 1 && scene !== 2) throw new RuleInputError('scene: 0, 1 or 2 (acquire\'s clientRequest.scene)');
  try {
    checkSceneMode(scene, mode);
  } catch (e) {
    throw new RuleInputError(e instanceof ValidationError ? `${e.path === 'mode' ? 'mode' : 'scene'}: ${e.rule}` : String(e));
  }
  let clientRequest: StartClientRequest;
  try {
    clientRequest = validateStartClientRequest(b.clientRequest ?? {}, mode, scene);
  } catch (e) {
    if (e instanceof ValidationError) throw new RuleInputError(`${e.path.startsWith('clientRequest') ? e.path : `clientRequest.${e.path}`}: ${e.rule}`);
    throw e;
  }
  if (clientRequest.token !== undefined) throw new RuleInputError('clientRequest.token: leave it out; each recording gets a token of its own');
  return { cname: b.cname, mode, uid: b.uid as string | undefined, scene, clientRequest };
}
