import type { Refusal, RefusalAnswer, RefusalWording } from '../../server/framework-errors.ts';
import type { ChatApp } from './auth.ts';
import { chatErrors, errorBody, type ChatRestError } from './errors.ts';

const AS_CHAT: Readonly<Record<Refusal, () => ChatRestError>> = {
  badUrl: () => chatErrors.badRequest('the URL is not valid percent-encoding'),
  uriTooLong: () => chatErrors.badRequest('a path segment is too long'),
  notFound: () => chatErrors.routeNotFound(),
  badRequest: () => chatErrors.badRequest('the request could not be read'),
  internal: () => chatErrors.internal(),
};

/**
 * Refusals the router gives for paths under the served `/{org}/{app}/` (an unknown path, or a username `..` that
 * the URL resolves away) come in the chat error body, so a chat client parses every answer of its prefix alike.
 */
export function wordChatRefusal(app: ChatApp, now: () => number): RefusalWording {
  const prefix = `/${app.org}/${app.app}/`;
  return (path: string, refusal: Refusal): RefusalAnswer | undefined => {
    if (!path.startsWith(prefix)) return undefined;
    const e = AS_CHAT[refusal]();
    return { status: e.status, body: { ...errorBody(e, now(), 0) } };
  };
}
