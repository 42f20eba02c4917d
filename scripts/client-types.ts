import openapiTS, { astToString } from 'openapi-typescript';

/** The command's TypeScript types for the API, generated from the committed OpenAPI document. */
export async function clientTypes(document: string): Promise<string> {
  const ast = await openapiTS(JSON.parse(document) as Parameters<typeof openapiTS>[0]);
  return `// Generated from openapi/public-api-v1.json by \`npm run openapi\`: do not edit by hand.\n${astToString(ast)}`;
}
