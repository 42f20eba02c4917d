// The loader hook of module-trace.mjs: appends the path of every file Node loads as a module.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

let file;

export function initialize(data) {
  file = data.file;
}

export async function load(url, context, next) {
  if (url.startsWith('file:')) fs.appendFileSync(file, `${fileURLToPath(url)}\n`);
  return next(url, context);
}
