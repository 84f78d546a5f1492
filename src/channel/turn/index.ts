export { iceServerLinks, isTurnUrl, turnCredentials, type IceServer, type TurnGrant, type TurnSettings } from './credentials.ts';
