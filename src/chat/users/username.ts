import { chatErrors, type ChatRestError } from './errors.ts';

export const USERNAME_MAX = 64;
export const NICKNAME_MAX = 100;
export const PASSWORD_MAX = 64;
const LEGAL = /^[a-z0-9_.-]+$/;

export type Checked<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: ChatRestError };

/**
 * Usernames are case-insensitive and stored lower-case ("Aa" and "aa" are one user); after lower-casing
 * only a-z, 0-9, "_", "-", "." are legal, 1 to 64 characters.
 */
export function checkUsername(raw: unknown): Checked<string> {
  if (raw === undefined || raw === null || raw === '') return { ok: false, error: chatErrors.usernameMissing() };
  if (typeof raw !== 'string') return { ok: false, error: chatErrors.illegalArgument('username must be a string') };
  if (raw.length > USERNAME_MAX) return { ok: false, error: chatErrors.usernameTooLong() };
  const name = raw.toLowerCase();
  if (!LEGAL.test(name)) return { ok: false, error: chatErrors.usernameIllegal(printable(raw)) };
  return { ok: true, value: name };
}

/** Keeps error messages one line and short whatever the client sent. */
function printable(s: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it replaces
  return s.replace(/[\u0000-\u001f\u007f]/g, '?');
}

export interface NewUserInput {
  readonly username: string;
  readonly password: string | undefined;
  readonly nickname: string | undefined;
}

/** Validates one registration object: `username` (required), `password` and `nickname` (optional strings). */
export function checkNewUser(raw: unknown): Checked<NewUserInput> {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return { ok: false, error: chatErrors.invalidRequest('Each user must be a JSON object.') };
  }
  const o = raw as Record<string, unknown>;
  const name = checkUsername(o.username);
  if (!name.ok) return name;
  const { password, nickname } = o;
  if (password !== undefined && password !== null && typeof password !== 'string') {
    return { ok: false, error: chatErrors.illegalArgument('password must be a string') };
  }
  if (typeof password === 'string' && Buffer.byteLength(password) > PASSWORD_MAX) {
    return { ok: false, error: chatErrors.passwordTooLong() };
  }
  if (nickname !== undefined && nickname !== null && typeof nickname !== 'string') {
    return { ok: false, error: chatErrors.illegalArgument('nickname must be a string') };
  }
  if (typeof nickname === 'string' && [...nickname].length > NICKNAME_MAX) {
    return { ok: false, error: chatErrors.nicknameTooLong() };
  }
  return {
    ok: true,
    value: {
      username: name.value,
      password: typeof password === 'string' && password !== '' ? password : undefined,
      nickname: typeof nickname === 'string' && nickname !== '' ? nickname : undefined,
    },
  };
}
