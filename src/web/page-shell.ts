import { escapeHtml, sha256Source } from './html.ts';

/**
 * What one kind of server-rendered page may load. Everything not named is refused
 * (`default-src 'none'`); inline style and script are allowed by their hashes only.
 */
export type PagePolicy = {
  /** The page's inline stylesheet. */
  style?: string;
  /** The page's inline script. */
  script?: string;
  /** Sources of images (img-src), e.g. "'self' data:". */
  img?: string;
  /** Sources of audio and video (media-src). */
  media?: string;
  /** Sources the script may call (connect-src). */
  connect?: string;
  /** Where the page's forms may post: "'self'", "'none'", or the site and more. */
  formAction: string;
};

/**
 * Response headers of an HTML page: never cached, no referrer (some pages carry a secret in
 * their URL), not indexed, not sniffed, not framed, and a CSP that allows only what `policy` names.
 */
export function securePageHeaders(policy: PagePolicy): Record<string, string> {
  const directives = [
    "default-src 'none'",
    policy.script !== undefined && `script-src ${sha256Source(policy.script)}`,
    policy.style !== undefined && `style-src ${sha256Source(policy.style)}`,
    policy.img && `img-src ${policy.img}`,
    policy.media && `media-src ${policy.media}`,
    policy.connect && `connect-src ${policy.connect}`,
    "base-uri 'none'",
    `form-action ${policy.formAction}`,
    "frame-ancestors 'none'",
  ];
  return {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    'x-robots-tag': 'noindex, nofollow',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'content-security-policy': directives.filter(Boolean).join('; '),
  };
}

/**
 * A whole HTML document: the head (its title escaped here, the inline stylesheet if any) and
 * `body`, markup that is already safe, including any <script> the page's policy allows.
 */
export function pageDocument(page: { title: string; style?: string; body: string }): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${escapeHtml(page.title)}</title>
<link rel="icon" href="data:,">
${page.style === undefined ? '' : `<style>${page.style}</style>\n`}</head><body>
${page.body}
</body></html>`;
}
