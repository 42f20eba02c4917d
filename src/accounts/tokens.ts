import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import { randomToken } from '../lib/ids.ts';

/** SHA-256, hex: how codes, session tokens and link tokens are stored. */
export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

export const CODE_DIGITS = 8;

/** A sign-in code: CODE_DIGITS decimal digits, every one equally likely. */
export function newCode(): string {
  return String(randomInt(0, 10 ** CODE_DIGITS)).padStart(CODE_DIGITS, '0');
}

/** A code's stored form, bound to its address so one code cannot be tried against another. */
export function codeHash(email: string, code: string): string {
  return sha256(`${email}\n${code}`);
}

/** A bearer token for a cookie or a link (43 characters over [0-9A-Za-z], about 256 bits). */
export function newToken(): string {
  return randomToken(43);
}
