import fs from 'node:fs';
import { generateOpenApiDocument, serializeDocument } from '../src/openapi/openapi.document.ts';
import { clientTypes } from './client-types.ts';

const file = new URL('../openapi/public-api-v1.json', import.meta.url);
const document = serializeDocument(await generateOpenApiDocument());
fs.writeFileSync(file, document);
process.stdout.write(`wrote ${file.pathname}\n`);

// The user command's types come from the same document, so the client cannot drift from the server.
const types = new URL('../src/client/api-types.ts', import.meta.url);
fs.writeFileSync(types, await clientTypes(document));
process.stdout.write(`wrote ${types.pathname}\n`);
