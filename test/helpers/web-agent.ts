import type { LightMyRequestResponse } from 'fastify';
import type { TestApp } from './app.ts';

/** A cookie-keeping client for the account pages, through the real HTTP stack (app.inject). */
export class WebAgent {
  readonly cookies = new Map<string, string>();
  constructor(private readonly t: TestApp) {}

  #remember(res: LightMyRequestResponse): LightMyRequestResponse {
    for (const c of res.cookies as Array<{ name: string; value: string; maxAge?: number; expires?: Date }>) {
      if (c.value === '' || c.maxAge === 0 || (c.expires && c.expires.getTime() <= 0)) this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
    return res;
  }

  #cookieHeader(): Record<string, string> {
    return this.cookies.size ? { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } : {};
  }

  async get(url: string): Promise<LightMyRequestResponse> {
    return this.#remember(await this.t.request({ method: 'GET', url, headers: this.#cookieHeader() }));
  }

  /** Posts a form; `_csrf` comes from `from` (a page's HTML) unless given. */
  async post(
    url: string,
    form: Record<string, string | string[]>,
    options: { from?: string; headers?: Record<string, string> } = {},
  ): Promise<LightMyRequestResponse> {
    const body = new URLSearchParams();
    const csrf = options.from ? csrfIn(options.from) : undefined;
    if (csrf && form._csrf === undefined) body.append('_csrf', csrf);
    for (const [k, v] of Object.entries(form)) for (const one of Array.isArray(v) ? v : [v]) body.append(k, one);
    return this.#remember(
      await this.t.request({
        method: 'POST',
        url,
        payload: body.toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...this.#cookieHeader(), ...options.headers },
      }),
    );
  }

  /** Signs in through the JSON API (the mailed code), keeping the session cookie. */
  async verify(email: string, code: string): Promise<LightMyRequestResponse> {
    return this.#remember(await this.t.request({ method: 'POST', url: '/public/v1/signup/verify', payload: { email, code } }));
  }
}

export function csrfIn(html: string): string {
  const match = /name="_csrf" value="([0-9a-f]{64})"/.exec(html);
  if (!match) throw new Error('No CSRF token on the page.');
  return match[1]!;
}

/** The secret shown once on the keys page. */
export function secretIn(html: string): string | null {
  return /<code id="new-secret">([^<]+)<\/code>/.exec(html)?.[1] ?? null;
}
