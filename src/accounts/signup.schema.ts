import * as z from 'zod';
import { emailSchema } from '../users/users.schema.ts';
import { CODE_DIGITS } from './tokens.ts';

export const signupStartBodySchema = z
  .object({ email: emailSchema })
  .meta({ id: 'SignupStartRequest', description: 'Where to send a one-time code.' });

export const signupStartResponseSchema = z
  .object({
    status: z.literal('accepted'),
    message: z.string(),
    codeExpiresInSeconds: z.number().int().min(1).max(86_400).describe('How long a code works once it has been sent.'),
    verify: z.url().describe('Where the code is sent next (POST /public/v1/signup/verify), or typed into the sign-in page.'),
  })
  .meta({ id: 'SignupStartResponse', description: 'The same answer for every well-formed address, whether or not a code is sent to it.' });

export const signupVerifyBodySchema = z
  .object({
    email: emailSchema,
    code: z
      .string()
      .regex(new RegExp(`^\\s*\\d{${CODE_DIGITS}}\\s*$`), `the ${CODE_DIGITS}-digit code from the mail`)
      .describe('The one-time code from the mail.'),
  })
  .meta({ id: 'SignupVerifyRequest' });

export const signupVerifyResponseSchema = z
  .object({
    signedIn: z.literal(true),
    user: z.object({ id: z.string(), email: z.string() }),
    created: z.boolean().describe('True when this sign-in created the account.'),
    sessionExpiresAt: z.iso.datetime(),
    next: z.url().describe('The developer settings page, where API keys are created.'),
  })
  .meta({
    id: 'SignupVerifyResponse',
    description: 'A browser session cookie is set for the pages; the REST API itself never takes cookies.',
  });
