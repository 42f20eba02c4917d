import { describe, expect, it } from 'vitest';
import { pageTour } from './page-tour.ts';

/** The tour's pages for someone signed out (the rest: pages-account and pages-forms). */
const { visitor, visit } = pageTour();

/** The page at `path` (the upload link's page for null) at each width: the one header and stylesheet, nothing sticking out. */
async function fitsBothWidths(name: string, path: string | null, signedIn: boolean) {
  for (const seen of await visit(name, path ?? visitor.uploadPath, signedIn ? visitor.session : undefined)) {
    expect(seen.scroll, `${name} at ${seen.width} px`).toBeLessThanOrEqual(seen.client);
    expect({ brand: seen.brand, stylesheets: seen.stylesheets }).toEqual({ brand: 'Herald', stylesheets: 1 });
  }
}

describe('the signed-out pages in a browser fit a phone and a desktop, each with the one header and stylesheet', () => {
  it.each([
    ['sign-in', '/account/sign-in'],
    ['code', '/account/sign-in?email=someone%40example.test&sent=1'],
    ['link', `/account/link/${'x'.repeat(32)}`],
    ['upload', null],
    ['upload-closed', `/u/${'x'.repeat(43)}`],
    ['developers', '/developers'],
  ] as const)('%s', async (name, path) => {
    await fitsBothWidths(name, path, false);
  });
});
