/**
 * What an app registered with the authorization server may be, whichever way it came: the
 * developer settings, dynamic registration (RFC 7591) or a Client ID Metadata Document.
 */

/** The first-party command-line client (`herald login`): public, device flow. */
export const CLI_CLIENT_ID = 'herald-cli';

/** Herald's own apps by client id, with their names. */
const FIRST_PARTY: Record<string, string> = { [CLI_CLIENT_ID]: 'Herald command line' };

/** The bounds of an app's metadata (the developer settings have always had the first three). */
export const CLIENT_LIMITS = {
  /** Characters of its name. */
  name: 100,
  redirectUris: 10,
  /** Characters of any other text or URI. */
  text: 500,
  /** Entries of any other list (contacts, grant types…). */
  listItems: 10,
  /** The whole of it, as JSON. */
  metadataBytes: 8 * 1024,
} as const;

/** Dynamic registrations (RFC 7591, open to anyone) per client address per hour, counted in the shared rate-limit store. */
export const REGISTRATIONS_PER_HOUR = 30;

/** A dynamically registered app nobody allowed within this many seconds of its registration is deleted. */
export const UNUSED_CLIENT_TTL_SECONDS = 24 * 60 * 60;

export function isFirstParty(clientId: string): boolean {
  return Object.hasOwn(FIRST_PARTY, clientId);
}

export function firstPartyName(clientId: string): string | undefined {
  return Object.hasOwn(FIRST_PARTY, clientId) ? FIRST_PARTY[clientId] : undefined;
}

/** Characters drawn like the letters of "herald" in common fonts (Cyrillic and Greek lookalikes; I, 1 and | for l). */
const LOOKALIKES: Record<string, string> = {
  Н: 'h',
  һ: 'h',
  Һ: 'h',
  Е: 'e',
  е: 'e',
  Ε: 'e',
  А: 'a',
  а: 'a',
  Α: 'a',
  α: 'a',
  ɑ: 'a',
  Ӏ: 'l',
  ӏ: 'l',
  I: 'l',
  1: 'l',
  '|': 'l',
  ԁ: 'd',
};

/**
 * Names that read as Herald's own are reserved: compared as people read them (compatibility
 * forms, lookalike letters, case, spaces and punctuation ignored), any name containing "herald"
 * is refused.
 */
export function reservedName(name: string): boolean {
  const read = [...name.normalize('NFKC')].map((c) => LOOKALIKES[c] ?? c).join('');
  return read
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, '')
    .includes('herald');
}

/** Plain ASCII: the registration endpoint repeats its refusals in a WWW-Authenticate header. */
export const RESERVED_NAME_MESSAGE = "Names containing Herald are reserved for Herald's own apps: choose another name.";

/** A redirect URI an MCP client or native app may register: https, or http on a loopback address. */
export function acceptableRedirectUri(uri: string): boolean {
  if (uri.length > CLIENT_LIMITS.text) return false;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return false;
  }
  if (url.hash) return false;
  if (url.protocol === 'https:') return true;
  return url.protocol === 'http:' && (url.hostname === '127.0.0.1' || url.hostname === '[::1]' || url.hostname === 'localhost');
}

/**
 * Why a dynamic registration's metadata (after the library's own checks) is refused, or null.
 * Every refusal is invalid_client_metadata (the library would call one that starts with
 * "redirect_uris" invalid_redirect_uri), as for a redirect URI that is not https or loopback.
 */
export function registrationProblem(metadata: Record<string, unknown>): string | null {
  for (const [field, value] of Object.entries(metadata)) {
    const longest = field === 'client_name' ? CLIENT_LIMITS.name : CLIENT_LIMITS.text;
    const most = field === 'redirect_uris' ? CLIENT_LIMITS.redirectUris : CLIENT_LIMITS.listItems;
    if (typeof value === 'string' && value.length > longest) return `Too long: ${field} has at most ${longest} characters.`;
    if (Array.isArray(value) && value.length > most) return `Too many entries: ${field} has at most ${most}.`;
    if (Array.isArray(value) && value.some((entry) => typeof entry === 'string' && entry.length > CLIENT_LIMITS.text))
      return `An entry of ${field} is too long: at most ${CLIENT_LIMITS.text} characters.`;
  }
  if (typeof metadata.client_name === 'string' && reservedName(metadata.client_name)) return RESERVED_NAME_MESSAGE;
  if (Buffer.byteLength(JSON.stringify(metadata)) > CLIENT_LIMITS.metadataBytes)
    return `The metadata is too large: at most ${CLIENT_LIMITS.metadataBytes} bytes as JSON.`;
  return null;
}

/** Who an app is, as the pages that ask a person to trust it show it. */
export type ClientFacts = {
  clientId: string;
  name: string;
  /** One of Herald's own apps (never a registered one, whatever its name). */
  firstParty: boolean;
  /** When it was registered (ISO 8601); null for an app described by its metadata document. */
  registeredAt: string | null;
};

export function clientFacts(clientId: string, metadata: { client_name?: unknown; client_id_issued_at?: unknown } | undefined): ClientFacts {
  const own = firstPartyName(clientId);
  if (own !== undefined) return { clientId, name: own, firstParty: true, registeredAt: null };
  const name =
    typeof metadata?.client_name === 'string' && metadata.client_name.trim()
      ? metadata.client_name.trim().slice(0, CLIENT_LIMITS.name)
      : clientId;
  const issued = Number(metadata?.client_id_issued_at);
  return {
    clientId,
    name,
    firstParty: false,
    registeredAt: Number.isSafeInteger(issued) && issued > 0 ? new Date(issued * 1000).toISOString() : null,
  };
}
