import * as z from 'zod';

/** A form's text field: the first value if it came twice, '' if missing, at most `max` characters. */
export function formText(max = 1000) {
  return z
    .preprocess((value) => (Array.isArray(value) ? value[0] : value), z.string())
    .catch('')
    .transform((text) => text.slice(0, max));
}

/** A form's repeated field (checkboxes): its text values, at most `max` of them. */
export function formList(max = 100) {
  return z
    .preprocess((value) => (value === undefined ? [] : [value].flat()), z.array(z.unknown()))
    .catch([])
    .transform((values) => values.filter((v): v is string => typeof v === 'string').slice(0, max));
}

/** Reads a posted form (or a query string) through its schema; whatever it lacks reads as empty. */
export function readForm<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  return schema.parse(typeof body === 'object' && body !== null ? body : {});
}
