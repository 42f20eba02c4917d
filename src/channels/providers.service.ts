import * as z from 'zod';
import type { PlatformApps } from '../providers/platform-apps.ts';
import type { Provider } from '../providers/provider.ts';
import { getProvider, PROVIDER_IDENTIFIERS } from '../providers/registry.ts';
import type { FIELD_TYPES, ProviderDescription, ProviderField } from './providers.schema.ts';

/** The part of a JSON Schema (draft 2020-12, as Zod writes it) a configuration field is read from. */
type JsonSchema = {
  type?: string | string[];
  format?: string;
  title?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  items?: JsonSchema;
  readOnly?: boolean;
  writeOnly?: boolean;
  default?: unknown;
};

type Form = ProviderDescription['forms'][number];

/** "appPassword" → "App password", for a field whose schema gives no `title`. */
function labelOf(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function typeOf(schema: JsonSchema): (typeof FIELD_TYPES)[number] {
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) {
    const first = alternatives.find((a) => a.type !== 'null');
    return first ? typeOf(first) : 'json';
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'string':
      return schema.format === 'uri' ? 'url' : 'text';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'array':
      return schema.items && ['text', 'url'].includes(typeOf(schema.items)) ? 'list' : 'json';
    default:
      return 'json';
  }
}

/**
 * One object schema's fields, in the schema's order. A field marked `readOnly` is one Herald
 * learns while connecting (a session token, an API root it discovers), never asked for; one
 * marked `writeOnly` is a credential. `generated` is a field Herald fills in when it is left out.
 */
function formOf(schema: JsonSchema, title: string | null, generated: string | undefined): Form {
  const required = new Set((schema.required ?? []).filter((name) => name !== generated));
  const fields: ProviderField[] = Object.entries(schema.properties ?? {})
    .filter(([, p]) => p.readOnly !== true)
    .map(([name, p]) => ({
      name,
      label: p.title ?? labelOf(name),
      description: p.description ?? null,
      type: typeOf(p),
      required: required.has(name) && p.default === undefined,
      secret: p.writeOnly === true,
      ...(p.default !== undefined && { default: p.default }),
    }));
  return { title, fields };
}

/** A schema's forms: one, or one per alternative of a union (Discord's webhook or bot). */
function formsOf(schema: z.ZodType, generated?: string): Form[] {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  const alternatives = json.anyOf ?? json.oneOf;
  if (alternatives) return alternatives.map((a, i) => formOf(a, a.title ?? `Way ${i + 1}`, generated));
  return [formOf(json, null, generated)];
}

type Static = Omit<ProviderDescription, 'available' | 'unavailable'>;

function describe(provider: Provider): Static {
  const connect = provider.signIn ? 'sign-in' : provider.connectAccount ? 'form' : 'operator';
  return {
    identifier: provider.identifier,
    name: provider.name,
    connect,
    help: provider.connectHelp,
    forms:
      connect === 'sign-in'
        ? formsOf(provider.signIn!.startSchema)
        : connect === 'form'
          ? formsOf(provider.configSchema, provider.generatedSecret?.field)
          : [],
  };
}

/** Written once per process: the providers' schemas do not change while it runs. */
let described: readonly Static[] | undefined;

/**
 * Every platform this server offers, with how it connects and the fields it takes, generated from
 * the providers' own schemas (the same ones POST /integrations/connect checks against), and
 * whether the operator's setup lets it be connected now.
 */
export function listProviders(platformApps: PlatformApps): ProviderDescription[] {
  described ??= PROVIDER_IDENTIFIERS.map((id) => describe(getProvider(id)));
  return described.map((d) => {
    const unavailable = getProvider(d.identifier).unavailable?.(platformApps) ?? null;
    return { ...d, available: unavailable === null, ...(unavailable !== null && { unavailable }) };
  });
}
