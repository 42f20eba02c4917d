import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import './route-config.ts';

/**
 * What the log shows of a request: method, URL (an upload link's secret is all it takes to
 * upload, so it is left out), client address, and the key that made it when there is one.
 */
export function requestForLog(request: FastifyRequest) {
  const url = request.url;
  const line: { method: string; url: string; remoteAddress: string; keyId?: string } = {
    method: request.method,
    url: url.startsWith('/u/') ? url.replace(/^\/u\/[^/?]+/, '/u/[secret]') : url,
    remoteAddress: request.ip,
  };
  if (request.principal) line.keyId = request.principal.keyId;
  return line;
}

export function replyForLog(reply: FastifyReply) {
  return { statusCode: reply.statusCode };
}

/** The serializers the request line uses; give them to the logger. */
export const requestLogSerializers = { req: requestForLog, res: replyForLog };

/**
 * One line per request, written once the answer is sent: the request, its status and the time
 * it took, instead of Fastify's two (one when it arrives, one when it is answered).
 */
export class RequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = { req: request, res: reply, responseTime: Math.round(reply.elapsedTime * 10) / 10 };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}
