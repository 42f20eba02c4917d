/** Parses JSON stored by Herald itself, answering `fallback` for null or text that does not parse. */
export function parseJsonOr<T>(text: string | null, fallback: T): T {
  if (text === null) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}
