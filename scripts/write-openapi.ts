import fs from 'node:fs';
import { generateOpenApiDocument, serializeDocument } from '../src/openapi/openapi.document.ts';

const file = new URL('../openapi/public-api-v1.json', import.meta.url);
fs.writeFileSync(file, serializeDocument(await generateOpenApiDocument()));
process.stdout.write(`wrote ${file.pathname}\n`);
