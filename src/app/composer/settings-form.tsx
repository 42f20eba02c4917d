import type { ComponentChildren } from 'preact';
import { AreaField, CheckField, ChoiceField, InputField } from '../shared/fields.tsx';

/** A JSON Schema property, as GET /integration-settings/:id describes a channel's settings. */
type Property = {
  type?: string | string[];
  enum?: unknown[];
  description?: string;
  title?: string;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  items?: Property;
  additionalProperties?: Property | boolean;
  default?: unknown;
};
type ObjectSchema = { properties?: Record<string, Property>; required?: string[] };

/** Settings the composer fills in itself (alt text is asked for beside each file). */
const OWN = new Set(['alt']);

function typeOf(p: Property): string {
  const t = Array.isArray(p.type) ? p.type.find((x) => x !== 'null') : p.type;
  if (p.enum) return 'enum';
  return t ?? 'json';
}

/** "spoilerText" → "Spoiler text". */
function labelOf(name: string, p: Property): string {
  if (p.title) return p.title;
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * How a channel's platform takes alt text, read from its settings schema (a property `alt`): one
 * per file (an object keyed by the file's id or URL: Mastodon, Bluesky, X…), one for the post's
 * image (a string: Pinterest), or not at all (null). `max`: the longest the platform takes.
 */
export type AltRule = { kind: 'per-file' | 'one'; max: number | null };

export function altRule(schema: Record<string, unknown> | undefined): AltRule | null {
  const alt = (schema as ObjectSchema | undefined)?.properties?.alt;
  if (!alt) return null;
  const types = Array.isArray(alt.type) ? alt.type : [alt.type];
  if (types.includes('string')) return { kind: 'one', max: alt.maxLength ?? null };
  const each = typeof alt.additionalProperties === 'object' ? alt.additionalProperties : undefined;
  return { kind: 'per-file', max: each?.maxLength ?? null };
}

type AltMedia = { path: string; name: string; type: 'image' | 'video'; alt: string };

/** The `alt` setting for a platform's rule: each file's text by its URL, or the first image's text alone; undefined when there is none. */
export function altSetting(rule: AltRule, media: AltMedia[]): string | Record<string, string> | undefined {
  if (rule.kind === 'one') return media.find((m) => m.type === 'image' && m.alt.trim())?.alt.trim();
  const given = media.filter((m) => m.alt.trim());
  return given.length ? Object.fromEntries(given.map((m) => [m.path, m.alt.trim()])) : undefined;
}

/** Alt text longer than the platform takes, in words (counted as the API checks it: UTF-16 code units). */
export function altProblems(rule: AltRule, media: AltMedia[]): string[] {
  const { max } = rule;
  if (max === null) return [];
  const taken = rule.kind === 'one' ? media.filter((m) => m.type === 'image' && m.alt.trim()).slice(0, 1) : media;
  return taken
    .filter((m) => m.alt.trim().length > max)
    .map((m) => `${m.name}: the alt text is ${m.alt.trim().length - max} over the limit of ${max} characters.`);
}

/** The names of the settings the schema requires (besides those the composer fills in). */
export function requiredSettings(schema: Record<string, unknown> | undefined): string[] {
  return ((schema as ObjectSchema | undefined)?.required ?? []).filter((name) => !OWN.has(name));
}

/**
 * A channel's settings as a form generated from its JSON Schema: text, numbers, yes/no, choices,
 * lists (one per line), and JSON for anything deeper. Empty fields are left out of the post.
 */
export function SettingsForm({
  idPrefix,
  schema,
  values,
  onChange,
}: {
  idPrefix: string;
  schema: Record<string, unknown>;
  values: Record<string, unknown>;
  onChange: (values: Record<string, unknown>) => void;
}) {
  const object = schema as ObjectSchema;
  const entries = Object.entries(object.properties ?? {}).filter(([name]) => !OWN.has(name));
  if (entries.length === 0) return <p class="muted">This platform has no settings.</p>;
  const required = new Set(object.required ?? []);
  const set = (name: string, value: unknown) => {
    const next = { ...values };
    if (value === undefined || value === '' || (Array.isArray(value) && value.length === 0)) delete next[name];
    else next[name] = value;
    onChange(next);
  };
  return (
    <div class="settings-form">
      {entries.map(([name, p]) => {
        const kind = typeOf(p);
        const value = values[name];
        const frame = {
          id: `${idPrefix}-${name}`,
          label: (
            <>
              {labelOf(name, p)}
              {required.has(name) && <span class="required"> (required)</span>}
            </>
          ),
          description: p.description,
        };
        if (kind === 'boolean')
          return (
            <CheckField
              {...frame}
              checked={value === true}
              onChange={(e) => set(name, (e.target as HTMLInputElement).checked || undefined)}
            />
          );
        if (kind === 'enum')
          return (
            <ChoiceField
              {...frame}
              options={(p.enum ?? []).map(String)}
              value={value === undefined ? '' : String(value)}
              onChange={(e) => set(name, (e.target as HTMLSelectElement).value || undefined)}
            />
          );
        if (kind === 'number' || kind === 'integer')
          return (
            <InputField
              {...frame}
              type="number"
              min={p.minimum}
              max={p.maximum}
              step={kind === 'integer' ? 1 : 'any'}
              value={value === undefined ? '' : String(value)}
              onInput={(e) => {
                const raw = (e.target as HTMLInputElement).value;
                set(name, raw === '' ? undefined : Number(raw));
              }}
            />
          );
        if (kind === 'array' && p.items && typeOf(p.items) === 'string')
          return (
            <AreaField
              {...frame}
              value={Array.isArray(value) ? value.join('\n') : ''}
              onInput={(e) =>
                set(
                  name,
                  (e.target as HTMLTextAreaElement).value
                    .split('\n')
                    .map((line) => line.trim())
                    .filter(Boolean),
                )
              }
            />
          );
        if (kind === 'string')
          return (
            <InputField
              {...frame}
              type="text"
              maxLength={p.maxLength}
              value={typeof value === 'string' ? value : ''}
              onInput={(e) => set(name, (e.target as HTMLInputElement).value)}
            />
          );
        return <JsonField frame={frame} value={value} onChange={(parsed) => set(name, parsed)} />;
      })}
    </div>
  );
}

/** A setting with a deeper shape, written as JSON; an unreadable value is said so and not sent. */
function JsonField({
  frame,
  value,
  onChange,
}: {
  frame: { id: string; label: ComponentChildren; description: string | undefined };
  value: unknown;
  onChange: (value: unknown) => void;
}) {
  const initial = value === undefined ? '' : JSON.stringify(value);
  return (
    <AreaField
      {...frame}
      class="mono"
      value={initial}
      onChange={(e) => {
        const raw = (e.target as HTMLTextAreaElement).value.trim();
        if (raw === '') return onChange(undefined);
        try {
          onChange(JSON.parse(raw));
          (e.target as HTMLTextAreaElement).setCustomValidity('');
        } catch {
          (e.target as HTMLTextAreaElement).setCustomValidity('This is not valid JSON.');
          (e.target as HTMLTextAreaElement).reportValidity();
        }
      }}
    />
  );
}
