/** The one catalogue of webhook events, statuses and codes (docs/notify.md): every name in catalogue.ts is public. */
export * from './catalogue.ts';
