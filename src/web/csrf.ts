import { sha256 } from '../accounts/tokens.ts';

/** The header a request authenticated by the browser session must carry (see sessionCsrfToken). */
export const CSRF_HEADER = 'x-herald-csrf';

/**
 * The CSRF token of a browser secret: of the session's (HttpOnly) token once signed in, or of a
 * random cookie before. Another site can read neither, so it cannot compute the token.
 */
export function csrfFor(kind: 'session' | 'anonymous', secret: string): string {
  return sha256(`herald-csrf\n${kind}\n${secret}`);
}

/** The token a signed-in page's forms send back, and the app sends in `X-Herald-CSRF` with every API call. */
export function sessionCsrfToken(sessionToken: string): string {
  return csrfFor('session', sessionToken);
}
