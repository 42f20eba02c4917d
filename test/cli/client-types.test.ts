import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { clientTypes } from '../../scripts/client-types.ts';

describe("the user command's API types", () => {
  it('are generated from the committed OpenAPI document (run `npm run openapi` after changing it)', async () => {
    const document = fs.readFileSync(new URL('../../openapi/public-api-v1.json', import.meta.url), 'utf8');
    const committed = fs.readFileSync(new URL('../../src/client/api-types.ts', import.meta.url), 'utf8');
    expect(committed).toBe(await clientTypes(document));
  });

  it('stay on the client side: the command imports nothing of the server', () => {
    const dir = new URL('../../src/client/', import.meta.url);
    const files = fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    const imports = files.flatMap((f) =>
      [...fs.readFileSync(new URL(f, dir), 'utf8').matchAll(/from '(\.\.?\/[^']+)'/g)].map((m) => new URL(m[1]!, new URL(f, dir)).pathname),
    );
    expect(imports.filter((p) => !p.includes('/src/client/') && !p.endsWith('/package.json'))).toEqual([]);
  });
});
