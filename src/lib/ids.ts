import { randomBytes, randomUUID } from 'node:crypto';

/** A new opaque identifier for a stored row. */
export function newId(): string {
  return randomUUID();
}

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * A random string over [0-9A-Za-z]. Rejection sampling keeps every character equally
 * likely, so `length` characters carry length × log2(62) bits.
 */
export function randomToken(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += ALPHABET[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}
