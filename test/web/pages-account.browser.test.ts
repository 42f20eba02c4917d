import { describe, expect, it } from 'vitest';
import { pageTour } from './page-tour.ts';

/** The tour's signed-in account pages (the rest: pages-public and pages-forms). */
const { visitor, visit } = pageTour();

/** The page at `path` (the upload link's page for null) at each width: the one header and stylesheet, nothing sticking out. */
async function fitsBothWidths(name: string, path: string | null, signedIn: boolean) {
  for (const seen of await visit(name, path ?? visitor.uploadPath, signedIn ? visitor.session : undefined)) {
    expect(seen.scroll, `${name} at ${seen.width} px`).toBeLessThanOrEqual(seen.client);
    expect({ brand: seen.brand, stylesheets: seen.stylesheets }).toEqual({ brand: 'Herald', stylesheets: 1 });
  }
}

describe('the account pages in a browser fit a phone and a desktop, each with the one header and stylesheet', () => {
  it.each([
    ['keys', '/account/keys'],
    ['members', '/account/members'],
    ['webhooks', '/account/webhooks'],
    ['approvals', '/account/approvals'],
    ['apps', '/account/apps'],
    ['developer-apps', '/account/developer-apps'],
    ['device', '/oauth/device'],
    ['request-expired', '/oauth/interaction/nothing-here'],
  ] as const)('%s', async (name, path) => {
    await fitsBothWidths(name, path, true);
  });
});
