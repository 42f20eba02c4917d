import { createRequire } from 'node:module';
import type { compile as Compile, DomNode, FormatCallback, FormatOptions } from 'html-to-text';

const require = createRequire(import.meta.url);

/** How one chat platform writes the stored HTML's formatting. */
export type MarkupDialect = {
  bold: string;
  italic: string;
  strike: string;
  /** Underline, where the platform has it (Discord); otherwise the text stays plain. */
  underline?: string;
  code: string;
  /** A link whose text differs from its URL. */
  link(text: string, href: string): string;
  /** A bare URL (the link's text only repeats it). */
  url(href: string): string;
  heading(text: string, level: number): string;
  bullet: string;
  /** Applied to every piece of text from the post (not to the markers Herald adds). */
  characters: Record<string, string>;
  /** Applied to code, where formatting characters are already literal. */
  codeCharacters?: Record<string, string>;
};

/** The text inside an element, its children's included. */
export function textOf(node: DomNode): string {
  if (node.type === 'text') return node.data ?? '';
  return (node.children ?? []).map(textOf).join('');
}

/** "https://Example.com/a/" and "example.com/a" say the same thing. */
export function sameLink(text: string, href: string): boolean {
  const norm = (s: string) =>
    s
      .trim()
      .replace(/^https?:\/\//i, '')
      .replace(/\/+$/, '')
      .toLowerCase();
  return norm(text) === norm(href);
}

function escapeWith(text: string, characters: Record<string, string>): string {
  return [...text].map((c) => characters[c] ?? c).join('');
}

function compileFor(dialect: MarkupDialect): (html: string) => string {
  const { compile } = require('html-to-text') as { compile: typeof Compile };
  const wrap =
    (marker: string | undefined): FormatCallback =>
    (elem, walk, builder) => {
      if (marker) builder.addInline(marker, { noWordTransform: true });
      walk(elem.children, builder);
      if (marker) builder.addInline(marker, { noWordTransform: true });
    };
  const anchor: FormatCallback = (elem, walk, builder) => {
    const href = String(elem.attribs?.href ?? '').trim();
    const text = textOf(elem).trim();
    if (!/^https?:\/\//i.test(href)) {
      walk(elem.children, builder);
      return;
    }
    const out = !text || sameLink(text, href) ? dialect.url(href) : dialect.link(escapeWith(text, dialect.characters), href);
    builder.addInline(out, { noWordTransform: true });
  };
  const inlineCode: FormatCallback = (elem, _walk, builder) => {
    builder.addInline(`${dialect.code}${escapeWith(textOf(elem), dialect.codeCharacters ?? {})}${dialect.code}`, { noWordTransform: true });
  };
  const pre: FormatCallback = (elem, _walk, builder, options: FormatOptions) => {
    builder.openBlock({ leadingLineBreaks: options.leadingLineBreaks ?? 2 });
    builder.addLiteral(`\`\`\`\n${escapeWith(textOf(elem), dialect.codeCharacters ?? {}).replace(/\n+$/, '')}\n\`\`\``);
    builder.closeBlock({ trailingLineBreaks: options.trailingLineBreaks ?? 2 });
  };
  const quote: FormatCallback = (elem, walk, builder) => {
    builder.openBlock({ leadingLineBreaks: 2, reservedLineLength: 2 });
    walk(elem.children, builder);
    builder.closeBlock({
      trailingLineBreaks: 2,
      blockTransform: (text) =>
        text
          .replace(/\n{3,}/g, '\n\n')
          .trim()
          .split('\n')
          .map((line) => `> ${line}`.trimEnd())
          .join('\n'),
    });
  };
  const heading: FormatCallback = (elem, _walk, builder) => {
    builder.openBlock({ leadingLineBreaks: 2 });
    builder.addLiteral(dialect.heading(escapeWith(textOf(elem).trim(), dialect.characters), Number(elem.name?.slice(1) ?? 1)));
    builder.closeBlock({ trailingLineBreaks: 2 });
  };
  return compile({
    wordwrap: false,
    preserveNewlines: false,
    encodeCharacters: dialect.characters,
    formatters: {
      bold: wrap(dialect.bold),
      italic: wrap(dialect.italic),
      strike: wrap(dialect.strike),
      underline: wrap(dialect.underline),
      anchor,
      inlineCode,
      pre,
      quote,
      heading,
    },
    selectors: [
      { selector: 'a', format: 'anchor' },
      { selector: 'strong', format: 'bold' },
      { selector: 'b', format: 'bold' },
      { selector: 'em', format: 'italic' },
      { selector: 'i', format: 'italic' },
      { selector: 's', format: 'strike' },
      { selector: 'del', format: 'strike' },
      { selector: 'u', format: 'underline' },
      { selector: 'code', format: 'inlineCode' },
      { selector: 'pre', format: 'pre' },
      { selector: 'blockquote', format: 'quote' },
      { selector: 'h1', format: 'heading' },
      { selector: 'h2', format: 'heading' },
      { selector: 'h3', format: 'heading' },
      { selector: 'p', options: { leadingLineBreaks: 2, trailingLineBreaks: 2 } },
      { selector: 'ul', options: { itemPrefix: dialect.bullet, leadingLineBreaks: 1, trailingLineBreaks: 1 } },
      { selector: 'ol', options: { leadingLineBreaks: 1, trailingLineBreaks: 1 } },
    ],
  });
}

/**
 * Builds a converter from the stored, sanitised HTML to a chat platform's markup: paragraphs
 * separated by a blank line, emphasis, links, lists, quotes and code in the platform's own
 * syntax, and the post's own text escaped so it never turns into formatting by accident.
 * html-to-text is loaded with the first conversion, not at start-up.
 */
export function markupConverter(dialect: MarkupDialect): (html: string) => string {
  let convert: ((html: string) => string) | undefined;
  return (html) => {
    convert ??= compileFor(dialect);
    return convert(html)
      .replace(/\n{3,}/g, '\n\n')
      .trim();
  };
}
