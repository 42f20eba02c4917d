import { createHash } from 'node:crypto';

/** Escapes text for HTML content and quoted attribute values, as numeric character references. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A piece of markup that is already safe; `html` templates insert it as is and escape everything else. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

type Part = SafeHtml | string | number | boolean | null | undefined | Part[];

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return '';
  if (Array.isArray(part)) return part.map(render).join('');
  if (part instanceof SafeHtml) return part.value;
  return escapeHtml(String(part));
}

/** A template tag that escapes every interpolated value unless it is SafeHtml. */
export function html(strings: TemplateStringsArray, ...values: Part[]): SafeHtml {
  let out = strings[0]!;
  values.forEach((value, i) => {
    out += render(value) + strings[i + 1]!;
  });
  return new SafeHtml(out);
}

export function sha256Source(text: string): string {
  return `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
}
