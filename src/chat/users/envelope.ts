import type { ChatUser } from './store.ts';

/** The success envelope of the chat users API. */
export interface UsersEnvelope {
  readonly action: 'get' | 'post';
  readonly application: string;
  readonly path: string;
  readonly uri: string;
  readonly entities: readonly ChatUser[];
  readonly timestamp: number;
  readonly duration: number;
  readonly organization: string;
  readonly applicationName: string;
  readonly count?: number;
  readonly data?: readonly { readonly username: string; readonly registerUserFailReason: string }[];
}

export interface EnvelopeInput {
  readonly action: 'get' | 'post';
  readonly applicationUuid: string;
  readonly org: string;
  readonly app: string;
  readonly uri: string;
  readonly entities: readonly ChatUser[];
  readonly timestamp: number;
  readonly duration: number;
}

export function usersEnvelope(i: EnvelopeInput): UsersEnvelope {
  return {
    action: i.action,
    application: i.applicationUuid,
    path: '/users',
    uri: i.uri,
    entities: i.entities,
    timestamp: i.timestamp,
    duration: i.duration,
    organization: i.org,
    applicationName: i.app,
  };
}
