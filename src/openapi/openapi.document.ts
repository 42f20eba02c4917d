import { buildApp } from '../app.ts';
import { loadConfig } from '../config.ts';
import { openRuntime } from '../runtime.ts';

/** The committed OpenAPI document is generated for this origin, so it does not depend on the machine. */
export const DOCUMENT_BASE_URL = 'http://localhost:3000';

/** Builds the application on a throwaway in-memory database and returns its OpenAPI document. */
export async function generateOpenApiDocument(): Promise<Record<string, unknown>> {
  const config = loadConfig({ BASE_URL: DOCUMENT_BASE_URL, LOG_LEVEL: 'silent', SECRET_KEY: '00'.repeat(32), DATABASE_URL: 'sqlite::memory:' });
  const runtime = await openRuntime(config, { target: { kind: 'sqlite', file: ':memory:' } });
  try {
    const app = await buildApp(config, { services: runtime.services, clock: runtime.clock, logger: false });
    await app.ready();
    const document = await app.openapiDocument();
    await app.close();
    return document;
  } finally {
    await runtime.close();
  }
}

export function serializeDocument(document: unknown): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
