import type { components, paths } from '../client/api-types.ts';

export type Post = components['schemas']['Post'];
export type Channel = components['schemas']['Channel'];
export type ApiError = components['schemas']['ApiError'];

/** The CSRF token the page carries; every API call made with the session cookie sends it. */
export function csrf(): string {
  return document.querySelector<HTMLMetaElement>('meta[name="herald-csrf"]')?.content ?? '';
}

/** An API refusal, with the API's own message (shown to the person as text). */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    message: string,
  ) {
    super(message);
  }
}

type Method = 'get' | 'post' | 'patch' | 'put' | 'delete';
/** The JSON body an operation answers with on 200. */
type Ok<P extends keyof paths, M extends Method> = paths[P][M] extends { responses: { 200: { content: { 'application/json': infer R } } } }
  ? R
  : never;
/** The JSON body an operation takes. */
type Body<P extends keyof paths, M extends Method> = paths[P][M] extends { requestBody?: { content: { 'application/json': infer B } } }
  ? B
  : never;

/**
 * Calls the public REST API as the signed-in member (the session cookie, same origin) with the
 * CSRF header. `path` is the documented path; `params` fills its `{id}`s, `query` the query string.
 */
export async function api<P extends keyof paths, M extends Method>(
  method: M,
  path: P,
  options: {
    params?: Record<string, string>;
    query?: Record<string, string | undefined>;
    body?: Body<P, M>;
    headers?: Record<string, string>;
  } = {},
): Promise<Ok<P, M>> {
  let url = `/public/v1${String(path).replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(options.params?.[name] ?? ''))}`;
  const query = Object.entries(options.query ?? {}).filter((entry): entry is [string, string] => entry[1] !== undefined);
  if (query.length) url += `?${new URLSearchParams(query).toString()}`;
  const headers: Record<string, string> = { ...options.headers, 'x-herald-csrf': csrf(), accept: 'application/json' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url, {
    method: method.toUpperCase(),
    headers,
    credentials: 'same-origin',
    ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
  });
  const text = await res.text();
  const data: unknown = text ? JSON.parse(text) : null;
  if (!res.ok) {
    const error = (data ?? {}) as { msg?: string; message?: string; code?: string };
    throw new ApiFailure(res.status, error.code, error.msg ?? error.message ?? `The request failed (${res.status}).`);
  }
  return data as Ok<P, M>;
}

export type Media = components['schemas']['Media'];
export type Notification = components['schemas']['Notification'];
export type ClientGroup = components['schemas']['ClientGroup'];
export type Provider = components['schemas']['Provider'];
export type ProviderField = components['schemas']['ProviderField'];
