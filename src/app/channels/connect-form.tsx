import { useState } from 'preact/hooks';
import { api, type Channel, type ClientGroup, type Provider, type ProviderField } from '../api.ts';
import { AreaField, CheckField, InputField } from '../shared/fields.tsx';
import { messageOf } from '../shared/format.ts';

export type ConnectAnswer = { url: string } | { integration: Channel; reconnected: boolean; secret?: string };

type Values = Record<string, string | boolean>;

/** A field's value as the API takes it; undefined leaves it out. Throws a sentence when it cannot be read. */
function valueOf(field: ProviderField, raw: string | boolean | undefined): unknown {
  if (field.type === 'boolean') return raw === true ? true : field.required ? false : undefined;
  const text = typeof raw === 'string' ? raw.trim() : '';
  if (text === '') return undefined;
  switch (field.type) {
    case 'number':
      return Number(text);
    case 'list':
      return text.split(/[\s,]+/).filter(Boolean);
    case 'json':
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw new Error(`${field.label}: write it as JSON.`);
      }
    default:
      return text;
  }
}

/** The connect request's fields from the form's values (empty optional fields left out). */
export function connectFields(fields: readonly ProviderField[], values: Values): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const field of fields) {
    const value = valueOf(field, values[field.name]);
    if (value !== undefined) body[field.name] = value;
  }
  return body;
}

function FieldInput({
  field,
  value,
  onChange,
}: {
  field: ProviderField;
  value: string | boolean | undefined;
  onChange: (v: string | boolean) => void;
}) {
  const frame = {
    id: `connect-${field.name}`,
    label: (
      <>
        {field.label}
        {field.required ? '' : ' (optional)'}
      </>
    ),
    description: field.description,
  };
  if (field.type === 'boolean')
    return <CheckField {...frame} checked={value === true} onChange={(e) => onChange((e.target as HTMLInputElement).checked)} />;
  const text = typeof value === 'string' ? value : '';
  if (field.type === 'list' || field.type === 'json')
    return (
      <AreaField
        {...frame}
        class={field.type === 'json' ? 'mono' : undefined}
        required={field.required}
        value={text}
        onInput={(e) => onChange((e.target as HTMLTextAreaElement).value)}
      />
    );
  const placeholder = typeof field.default === 'string' || typeof field.default === 'number' ? String(field.default) : undefined;
  return (
    <InputField
      {...frame}
      type={field.secret ? 'password' : field.type === 'number' ? 'number' : field.type === 'url' ? 'url' : 'text'}
      autocomplete="off"
      required={field.required}
      placeholder={placeholder}
      value={text}
      onInput={(e) => onChange((e.target as HTMLInputElement).value)}
    />
  );
}

/**
 * Connects a channel with the form the API describes for each platform (GET /providers):
 * browser sign-in platforms open the platform's sign-in in a new window; the others take their
 * configuration's fields. Optional fields sit under "More fields".
 */
export function ConnectForm(props: {
  providers: Provider[];
  groups: ClientGroup[];
  onAnswer: (result: ConnectAnswer) => void;
  onError: (text: string) => void;
}) {
  const [platformId, setPlatformId] = useState('');
  const [way, setWay] = useState(0);
  const [values, setValues] = useState<Values>({});
  const [name, setName] = useState('');
  const [group, setGroup] = useState('');
  const [busy, setBusy] = useState(false);
  const platform = props.providers.find((p) => p.identifier === platformId && p.available);
  const form = platform?.forms[Math.min(way, platform.forms.length - 1)];
  const fields = form?.fields ?? [];
  const required = fields.filter((f) => f.required);
  const optional = fields.filter((f) => !f.required);

  async function connect(event: Event) {
    event.preventDefault();
    if (!platform) return;
    let body: Record<string, unknown>;
    try {
      body = {
        provider: platform.identifier,
        ...connectFields(fields, values),
        ...(name.trim() && { name: name.trim() }),
        ...(group && { group }),
      };
    } catch (error) {
      props.onError(messageOf(error));
      return;
    }
    setBusy(true);
    try {
      props.onAnswer((await api('post', '/integrations/connect', { body: body as { provider: string } })) as ConnectAnswer);
      setValues({});
      setName('');
    } catch (error) {
      props.onError(messageOf(error));
    } finally {
      setBusy(false);
    }
  }
  const set = (key: string) => (value: string | boolean) => setValues({ ...values, [key]: value });
  const field = (f: ProviderField) => <FieldInput field={f} value={values[f.name]} onChange={set(f.name)} />;
  const unavailable = props.providers.filter((p) => !p.available);
  return (
    <form class="connect-form" onSubmit={(e) => void connect(e)}>
      <h2>Connect a channel</h2>
      <label for="connect-platform">Platform</label>
      <select
        id="connect-platform"
        value={platformId}
        onChange={(e) => {
          setPlatformId((e.target as HTMLSelectElement).value);
          setWay(0);
          setValues({});
        }}
      >
        <option value="">Choose a platform</option>
        {props.providers
          .filter((p) => p.available && p.connect !== 'operator')
          .map((p) => (
            <option value={p.identifier}>{p.name}</option>
          ))}
      </select>
      {unavailable.length > 0 && (
        <p class="muted small">
          Not set up on this server yet (the operator registers their apps): {unavailable.map((p) => p.name).join(', ')}.
        </p>
      )}
      {platform && (
        <>
          {platform.connect === 'sign-in' && (
            <p class="muted small">You sign in on {platform.name} in a new window; it comes back to Herald.</p>
          )}
          {platform.forms.length > 1 && (
            <>
              <label for="connect-way">How to connect</label>
              <select
                id="connect-way"
                value={String(way)}
                onChange={(e) => {
                  setWay(Number((e.target as HTMLSelectElement).value));
                  setValues({});
                }}
              >
                {platform.forms.map((f, i) => (
                  <option value={String(i)}>{f.title ?? `Way ${i + 1}`}</option>
                ))}
              </select>
            </>
          )}
          {required.map(field)}
          {optional.length > 0 && (
            <details class="more-fields">
              <summary>More fields: {optional.map((f) => f.label).join(', ')}</summary>
              {optional.map(field)}
            </details>
          )}
          <label for="connect-name">Name (optional: the account's own name otherwise)</label>
          <input
            id="connect-name"
            type="text"
            value={name}
            maxLength={200}
            onInput={(e) => setName((e.target as HTMLInputElement).value)}
          />
          {props.groups.length > 0 && (
            <>
              <label for="connect-group">Client group</label>
              <select id="connect-group" value={group} onChange={(e) => setGroup((e.target as HTMLSelectElement).value)}>
                <option value="">No group</option>
                {props.groups.map((g) => (
                  <option value={g.id}>{g.name}</option>
                ))}
              </select>
            </>
          )}
          <button type="submit" disabled={busy}>
            {platform.connect === 'sign-in' ? `Sign in with ${platform.name}` : 'Connect'}
          </button>
        </>
      )}
    </form>
  );
}
