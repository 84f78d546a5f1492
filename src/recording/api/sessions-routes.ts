/** GET sessions and GET sessions/{sid}: reeltime's extension of the recording API (docs/recording-api.md, "Sessions"). */
import type { FastifyInstance } from 'fastify';
import { RecordingApiError, fromDomainError } from '../errors.ts';
import { parseSessionQuery, type SessionReader } from '../sessions/index.ts';

export function registerSessionRoutes(r: FastifyInstance, base: string, sessions: SessionReader): void {
  r.get<{ Params: { appid: string } }>(`${base}/sessions`, async (req, reply) => {
    let q;
    try {
      q = parseSessionQuery(req.params.appid, req.query as Record<string, unknown>);
    } catch (e) {
      throw fromDomainError(e, {}) ?? e;
    }
    return reply.header('cache-control', 'no-store').send(await sessions.list(q));
  });
  r.get<{ Params: { appid: string; sid: string } }>(`${base}/sessions/:sid`, async (req, reply) => {
    const found = await sessions.detail(req.params.appid, req.params.sid);
    if (!found) throw new RecordingApiError('workerNotFound', undefined, { sid: req.params.sid });
    return reply.header('cache-control', 'no-store').send(found);
  });
}
