import * as z from 'zod';
import type { WorkspaceAccess } from '../auth/access.service.ts';
import type { RestScope } from '../auth/scopes.ts';
import type { Services } from '../services.ts';

export type ToolAnnotations = { readOnlyHint: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint: boolean };

/** A tool that only reads Herald's own data. */
export const READ_ONLY: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };

/**
 * A tool that changes something, with each hint said in full (an absent hint means true to MCP
 * clients for `destructiveHint` and `openWorldHint`): `destructive` when it removes or overwrites,
 * `idempotent` when calling it again with the same arguments changes nothing more, `openWorld` when it
 * reaches a platform outside Herald (publishing, a channel's tool, a URL).
 */
export function writes(hints: { destructive?: boolean; idempotent?: boolean; openWorld?: boolean }): ToolAnnotations {
  return {
    readOnlyHint: false,
    destructiveHint: hints.destructive ?? false,
    idempotentHint: hints.idempotent ?? false,
    openWorldHint: hints.openWorld ?? false,
  };
}

/** What an operation that takes an idempotency key receives besides its input. */
export type IdempotencyInput = { idempotencyKey?: string | undefined };

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
type NoInput = z.ZodObject<Record<never, never>>;

/**
 * One operation of the public API, described once: what it takes, the scope it needs, the
 * service call, and how each surface names and documents it. The REST route (`operationRoute`)
 * and the MCP tool (`operationTool`) are derived from it, so they cannot differ in input, scope
 * or call; each keeps its own text, written for its reader.
 */
export type Operation<P extends z.ZodObject = NoInput, Q extends z.ZodObject = NoInput, B extends z.ZodObject = NoInput, R = unknown> = {
  /** The MCP tool's name. */
  name: string;
  /** The REST scope; an MCP credential needs the MCP scope that stands for it (`mcpScopeFor`). */
  scope: RestScope;
  params?: P;
  query?: Q;
  body?: B;
  /**
   * Takes an idempotency key: the `Idempotency-Key` header on REST, the `idempotencyKey` argument
   * on MCP; the call gets it as `idempotencyKey`.
   */
  idempotencyKey?: true;
  /** The service call; the service checks the caller's access itself. */
  call(services: Services, access: WorkspaceAccess, input: z.output<P> & z.output<Q> & z.output<B> & IdempotencyInput): Promise<R>;
  rest: {
    method: Method;
    url: string;
    tags: string[];
    summary: string;
    description?: string;
    /** The answer's schema, sent with `status` (200 unless given). */
    response: z.ZodType;
    status?: 200 | 201;
    /** The error answers, by status. */
    errors: Record<number, z.ZodType>;
    /**
     * Writes the answer as JSON text itself, instead of the response schema's serializer: for
     * answers large enough that writing them in one piece would hold the event loop.
     */
    serialize?(result: R): Promise<string>;
  };
  mcp: {
    title: string;
    description: string;
    annotations: ToolAnnotations;
    /** Inputs of the REST route the tool does not take (e.g. one that changes the answer's shape away from `output`). */
    restOnly?: readonly string[];
    /** The tool's output: an object (a list answer is wrapped in one). */
    output: z.ZodObject;
    /** The service's answer as the tool's output; the answer itself when absent. */
    present?(result: R): unknown;
    summary(output: never): string;
  };
};

/** Declares an operation, checking its parts against each other. */
export function operation<
  P extends z.ZodObject = NoInput,
  Q extends z.ZodObject = NoInput,
  B extends z.ZodObject = NoInput,
  R = unknown,
  O extends z.ZodObject = z.ZodObject,
>(
  spec: Omit<Operation<P, Q, B, R>, 'mcp'> & {
    mcp: Omit<Operation['mcp'], 'output' | 'present' | 'summary'> & {
      output: O;
      present?(result: R): z.input<O>;
      summary(output: z.output<O>): string;
    };
  },
): Operation<P, Q, B, R> {
  return spec as unknown as Operation<P, Q, B, R>;
}

/** Everything an operation takes, in one object: the MCP tool's arguments (path parameters first, then query, then body). */
export function operationInput(op: Operation<z.ZodObject, z.ZodObject, z.ZodObject, unknown>, extra: z.ZodRawShape): z.ZodObject {
  const [first, ...rest] = [op.params, op.query, op.body].filter((part) => part !== undefined);
  return (first ?? z.object({})).extend(Object.assign({}, ...rest.map((part) => part.shape), extra) as z.ZodRawShape);
}

/** `n` and the word, in the plural unless n is 1 (a consonant before a final y makes -ies: delivery, deliveries). */
export const plural = (n: number, word: string) =>
  `${n} ${n === 1 ? word : /[^aeiou]y$/.test(word) ? `${word.slice(0, -1)}ies` : `${word}s`}`;

/**
 * A list's one-line summary for a tool: "2 endpoints: a; b." or "0 endpoints."; `more` follows the
 * count (say, that another page exists), and `separator` joins the items ('; ' unless told).
 */
export function listSummary<T>(items: readonly T[], word: string, describe: (item: T) => string, more = '', separator = '; '): string {
  return `${plural(items.length, word)}${more}${items.length ? `: ${items.map((item) => describe(item)).join(separator)}` : ''}.`;
}

/** How tools speak of time; in the server's instructions too. */
export const TIMES = 'Times are UTC (ISO 8601 with Z); call get_status for the server clock rather than guessing the date.';

/** How tools speak of post content; in the server's instructions too. */
export const HTML_CONTENT =
  'Post content is HTML: wrap paragraphs in <p>; text without any tag is read as plain text (a blank line starts a paragraph).';
