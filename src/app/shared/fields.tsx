import type { ComponentChildren, InputHTMLAttributes, SelectHTMLAttributes, TextareaHTMLAttributes } from 'preact';

/**
 * The app's generated form fields, one component per kind (a one-line input, a text area, a
 * choice, a yes/no box), each with its label and its description as the control's hint: the
 * channel's connect form (from GET /providers) and a channel's settings form (from its JSON
 * Schema) both draw their fields with these. The control's own attributes pass through.
 */
type Frame = { id: string; label: ComponentChildren; description?: string | null | undefined };

const hintId = (frame: Frame) => (frame.description ? `${frame.id}-hint` : undefined);

function Hint({ frame }: { frame: Frame }) {
  return frame.description ? (
    <span class="hint" id={hintId(frame)}>
      {frame.description}
    </span>
  ) : null;
}

function Labelled({ frame, children }: { frame: Frame; children: ComponentChildren }) {
  return (
    <div class="field">
      <label for={frame.id}>{frame.label}</label>
      <Hint frame={frame} />
      {children}
    </div>
  );
}

/** A one-line input: text, a number, an address, a secret. */
export function InputField({ id, label, description, ...input }: Frame & InputHTMLAttributes<HTMLInputElement>) {
  const frame = { id, label, description };
  return (
    <Labelled frame={frame}>
      <input id={id} aria-describedby={hintId(frame)} {...input} />
    </Labelled>
  );
}

/** A text area: a list, one item a line, or JSON. */
export function AreaField({ id, label, description, ...area }: Frame & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  const frame = { id, label, description };
  return (
    <Labelled frame={frame}>
      <textarea id={id} rows={2} aria-describedby={hintId(frame)} {...area} />
    </Labelled>
  );
}

/** One of a few values; the first option is "not set". */
export function ChoiceField({
  id,
  label,
  description,
  options,
  ...select
}: Frame & { options: string[] } & SelectHTMLAttributes<HTMLSelectElement>) {
  const frame = { id, label, description };
  return (
    <Labelled frame={frame}>
      <select id={id} aria-describedby={hintId(frame)} {...select}>
        <option value="">(not set)</option>
        {options.map((option) => (
          <option value={option}>{option}</option>
        ))}
      </select>
    </Labelled>
  );
}

/** Yes or no: a box before its label. */
export function CheckField({ id, label, description, ...box }: Frame & InputHTMLAttributes<HTMLInputElement>) {
  const frame = { id, label, description };
  return (
    <div class="check">
      <input id={id} type="checkbox" aria-describedby={hintId(frame)} {...box} />
      <label for={id}>{label}</label>
      <Hint frame={frame} />
    </div>
  );
}
