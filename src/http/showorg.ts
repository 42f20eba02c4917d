import type { FastifyRequest } from 'fastify';
import { BadRequestError } from '../errors.ts';

/** The workspace named by the `showorg` header, if any. */
export function readShoworg(request: FastifyRequest): string | undefined {
  const value = request.headers.showorg;
  if (Array.isArray(value)) throw new BadRequestError('Send the "showorg" header once.');
  return value?.trim() || undefined;
}
