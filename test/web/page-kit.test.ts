import { beforeAll, describe, expect, it } from 'vitest';
import { createTenant, createTestApp, type TestApp } from '../helpers/app.ts';
import { createPerson } from '../oauth/helpers.ts';

/** The headers every page carries, whatever it shows. */
const SECURITY_HEADERS = [
  'cache-control',
  'referrer-policy',
  'x-robots-tag',
  'x-content-type-options',
  'x-frame-options',
  'content-security-policy',
];

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ env: { BASE_URL: 'http://127.0.0.1:4000' } });
});

async function page(url: string, session?: string) {
  const res = await t.request({ method: 'GET', url, ...(session && { cookies: { herald_session: session } }) });
  const csp = String(res.headers['content-security-policy']);
  return {
    url,
    status: res.statusCode,
    headers: res.headers,
    style: /<style>([\s\S]*?)<\/style>/.exec(res.body)?.[1] ?? null,
    styleSrc: /style-src ([^;]+)/.exec(csp)?.[1] ?? null,
    header: /<header class="top">\s*<a class="brand" href="\/account">Herald<\/a>/.test(res.body),
  };
}

describe('the page kit', () => {
  it('serves /developers with the security headers of the other pages', async () => {
    const developers = await page('/developers');
    const signIn = await page('/account/sign-in');
    expect(developers.status).toBe(200);
    for (const name of SECURITY_HEADERS) expect(developers.headers[name], name).toBeDefined();
    expect(developers.headers['content-type']).toBe('text/html; charset=utf-8');
    for (const name of SECURITY_HEADERS.slice(0, -1)) expect(developers.headers[name], name).toBe(signIn.headers[name]);
    const csp = String(developers.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("form-action 'none'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
  });

  it('builds every page with the one shell: the same stylesheet, allowed by the same hash, and the same header', async () => {
    const person = await createPerson(t, 'owner');
    const tenant = await createTenant(t);
    const link = (await t.request({ method: 'POST', url: '/public/v1/upload-link', key: tenant.key })).json() as { url: string };
    const pages = await Promise.all([
      page('/account/sign-in'),
      page('/account/keys', person.sessionToken),
      page('/account/members', person.sessionToken),
      page('/account/apps', person.sessionToken),
      page('/account/developer-apps', person.sessionToken),
      page('/oauth/device', person.sessionToken),
      page(new URL(link.url).pathname),
      page(`/u/${'x'.repeat(43)}`),
      page('/developers'),
    ]);
    const [first] = pages;
    expect(first!.style).toBeTruthy();
    expect(first!.styleSrc).toMatch(/^'sha256-[A-Za-z0-9+/=]+'$/);
    for (const p of pages) {
      expect({ url: p.url, style: p.style, styleSrc: p.styleSrc, header: p.header }).toEqual({
        url: p.url,
        style: first!.style,
        styleSrc: first!.styleSrc,
        header: true,
      });
    }
  });

  it('shows the same navigation on the account and OAuth pages, Members and Webhooks included for an owner', async () => {
    const person = await createPerson(t, 'owner');
    const navOf = async (url: string) => {
      const res = await t.request({ method: 'GET', url, cookies: { herald_session: person.sessionToken } });
      return [...(/<nav aria-label="Account">([\s\S]*?)<\/nav>/.exec(res.body)?.[1] ?? '').matchAll(/href="([^"]+)"/g)].map((m) => m[1]);
    };
    const pages = [
      '/account/keys',
      '/account/members',
      '/account/webhooks',
      '/account/approvals',
      '/account/apps',
      '/account/developer-apps',
    ];
    // The web app's views first, then these pages, then the documentation: the developers' guide and the API reference.
    const app = ['/app', '/app/media', '/app/channels', '/app/analytics', '/app/notifications'];
    for (const url of [...pages, ...app]) expect(await navOf(url), url).toEqual([...app, ...pages, '/developers', '/docs']);
  });
});
