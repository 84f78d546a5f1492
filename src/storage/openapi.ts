/** The local bucket's part of the OpenAPI document (bucket-route.ts registers the route). */
import type { OpenApiContribution, OpenApiObject as Json } from '../http/index.ts';
import { openApiParam as param } from '../http/index.ts';

function bucketPaths(): Record<string, Json> {
  const parameters = [
    param('bucket', 'path', 'Bucket name.'),
    param('key', 'path', 'Object key (may contain slashes).'),
    param('expires', 'query', 'Production: expiry of a signed link (Unix seconds), as the sessions API hands it out.'),
    param('signature', 'query', "Production: the signed link's HMAC (base64url)."),
    { name: 'Range', in: 'header', required: false, description: 'A single byte range (`bytes=0-99`).', schema: { type: 'string' } },
  ];
  const object = { description: 'The object (single byte ranges answer 206).', content: { '*/*': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } } };
  const refused = {
    description: 'Production: no signed link or customer credentials (`signature_missing`), a wrong one (`signature_invalid`), or a late one (`signature_expired`).',
    content: { 'application/json': { schema: { type: 'object', required: ['error', 'message'], properties: { error: { type: 'string' }, message: { type: 'string' } } } } },
  };
  const op = (id: string): Json => ({
    operationId: id,
    tags: ['Local bucket'],
    summary: 'A recorded file from the local bucket',
    description:
      'Development: anyone with the URL. Production: a signed, expiring link from the sessions API, or the customer\'s credentials (docs/storage.md, "Who may read recordings").',
    // Either nothing (development, or a signed link in the query) or the customer's Basic credentials.
    security: [{}, { basicAuth: [] }],
    parameters,
    responses: { '200': object, '206': object, '403': refused, '404': { description: 'No such object.' }, '416': { description: 'Range not satisfiable.' } },
  });
  const watch: Json = {
    operationId: 'watchPlaylist',
    tags: ['Local bucket'],
    summary: "A session's HLS playlist from the customer's own bucket, its slices linked there",
    description:
      'For recordings in S3, S3-compatible stores and Azure: the playlist as stored now, each slice named by a presigned link (an Azure SAS) valid as long as this link. Only with a signed link from the sessions API (docs/storage.md, "Watch links").',
    security: [{}],
    parameters: [
      param('appId', 'path', 'The app whose session wrote the playlist.'),
      param('bucket', 'path', "The customer's bucket (Azure: container)."),
      param('key', 'path', 'The playlist\'s object key (may contain slashes).'),
      param('expires', 'query', 'Expiry of the link (Unix seconds).'),
      param('signature', 'query', "The link's HMAC (base64url)."),
    ],
    responses: {
      '200': { description: 'The playlist.', content: { 'application/vnd.apple.mpegurl': { schema: { type: 'string' } } } },
      '403': refused,
      '404': { description: 'No such playlist for this app and bucket.' },
      '502': { description: "The customer's store did not answer, or refused (`storage_unavailable`, the store named, never its credentials)." },
    },
  };
  return { '/bucket/{bucket}/{key}': { get: op('getObject'), head: op('headObject') }, '/watch/{appId}/{bucket}/{key}': { get: watch } };
}

export function bucketOpenApi(): OpenApiContribution {
  return { tags: ['Local bucket'], paths: bucketPaths() };
}
