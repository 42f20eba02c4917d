import * as z from 'zod';

/**
 * The one e-mail check: sign-up, sign-in, invitations and the operator's `user create` all
 * take an address only if a code can be sent to it and signed in with.
 */
export const emailSchema = z.email().max(254).describe('An e-mail address.').meta({ example: 'ana@example.com' });

/** An address as stored and compared: trimmed, in lower case. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}
