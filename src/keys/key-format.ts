import { hash, timingSafeEqual } from 'node:crypto';
import { randomToken } from '../lib/ids.ts';

/**
 * Credentials are `<prefix><id>_<secret>`: the id finds the row, the secret is checked
 * against a SHA-256 hash. REST keys start `svc_`, MCP keys `svc_mcp_`, OAuth tokens `svco_`.
 */
export const REST_PREFIX = 'svc_';
export const MCP_PREFIX = 'svc_mcp_';
export const OAUTH_PREFIX = 'svco_';

export type KeyKind = 'rest' | 'mcp';

const ID_LENGTH = 16;
const SECRET_LENGTH = 40;
const BODY = new RegExp(`^([0-9A-Za-z]{${ID_LENGTH}})_([0-9A-Za-z]{${SECRET_LENGTH}})$`);
/** A REST key sent exactly as issued, the whole header value: what nearly every request sends, read by one pattern. */
const PLAIN_REST_KEY = new RegExp(`^${REST_PREFIX}([0-9A-Za-z]{${ID_LENGTH}})_([0-9A-Za-z]{${SECRET_LENGTH}})$`);

export function newKeyId(): string {
  return randomToken(ID_LENGTH);
}

export function newSecret(): string {
  return randomToken(SECRET_LENGTH);
}

export function formatKey(kind: KeyKind, id: string, secret: string): string {
  return `${kind === 'mcp' ? MCP_PREFIX : REST_PREFIX}${id}_${secret}`;
}

export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

const DIGEST_BYTES = 32;
/** Where the presented secret's digest is written to be compared: one buffer, reused (the comparison is synchronous). */
const presented = Buffer.alloc(DIGEST_BYTES);

/**
 * Compares a presented secret with a stored hash (hex, or its bytes) in constant time. Every
 * authenticated request runs it: the digest comes as a binary (latin1) string, a character a
 * byte, copied into a reused buffer, which costs about half of a new Buffer for each digest.
 */
export function secretMatches(secret: string, storedHash: string | Buffer): boolean {
  const stored = typeof storedHash === 'string' ? Buffer.from(storedHash, 'hex') : storedHash;
  const written = presented.write(hash('sha256', secret, 'binary'), 0, 'binary');
  return written === DIGEST_BYTES && stored.length === DIGEST_BYTES && timingSafeEqual(presented, stored);
}

export type ParsedCredential =
  { form: 'key'; kind: KeyKind; id: string; secret: string } | { form: 'oauth'; token: string } | { form: 'invalid'; reason: string };

/** Reads an Authorization header value and says what kind of credential it is. */
export function parseAuthorization(header: string | undefined): ParsedCredential {
  if (header === undefined)
    return {
      form: 'invalid',
      reason: 'Missing Authorization header. Send your API key as the whole header value: "Authorization: svc_…".',
    };
  const plain = PLAIN_REST_KEY.exec(header);
  if (plain) return { form: 'key', kind: 'rest', id: plain[1]!, secret: plain[2]! };
  // HTTP allows only spaces and tabs around a value; anything else (a non-breaking space) is part of it.
  const value = header.replace(/^[ \t]+|[ \t]+$/g, '');
  if (value === '')
    return {
      form: 'invalid',
      reason: 'The Authorization header is empty. Send your API key as the whole header value: "Authorization: svc_…".',
    };

  if (/[^\x21-\x7e \t]/.test(value)) {
    return {
      form: 'invalid',
      reason:
        'The Authorization header holds characters no credential has (a non-breaking space, a line break or a non-ASCII letter): send the key exactly as it was shown.',
    };
  }
  const bearer = /^bearer[ \t]+(.*)$/i.exec(value);
  if (bearer) {
    const token = (bearer[1] ?? '').trim();
    if (token.startsWith(OAUTH_PREFIX)) return { form: 'oauth', token };
    // MCP clients are usually configured with a bearer token: an MCP key is accepted either way.
    if (token.startsWith(MCP_PREFIX)) return parseAuthorization(token);
    if (token.startsWith(REST_PREFIX)) {
      return {
        form: 'invalid',
        reason: 'API keys are sent without "Bearer": use "Authorization: svc_…". "Bearer" is only for OAuth tokens (svco_…).',
      };
    }
    return { form: 'invalid', reason: 'Unrecognised bearer token. OAuth tokens start with "svco_"; API keys are sent without "Bearer".' };
  }
  if (value.startsWith(OAUTH_PREFIX)) {
    return { form: 'invalid', reason: 'OAuth tokens (svco_…) are sent as "Authorization: Bearer svco_…".' };
  }
  const kind: KeyKind | null = value.startsWith(MCP_PREFIX) ? 'mcp' : value.startsWith(REST_PREFIX) ? 'rest' : null;
  if (kind === null) {
    if (BODY.test(value)) {
      return { form: 'invalid', reason: 'The API key is missing its "svc_" prefix: send the key exactly as it was shown at creation.' };
    }
    return { form: 'invalid', reason: 'Malformed credential. API keys start with "svc_" and are sent as the whole Authorization value.' };
  }
  const body = BODY.exec(value.slice(kind === 'mcp' ? MCP_PREFIX.length : REST_PREFIX.length));
  if (!body) return { form: 'invalid', reason: 'Malformed API key: it is truncated or has extra characters.' };
  return { form: 'key', kind, id: body[1]!, secret: body[2]! };
}
