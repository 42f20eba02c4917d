import * as z from 'zod';

export const FIELD_TYPES = ['text', 'url', 'number', 'boolean', 'list', 'json'] as const;

export const providerFieldSchema = z
  .object({
    name: z.string().describe('The field of POST /integrations/connect (next to `provider`).'),
    label: z.string().describe('A short label for a form.'),
    description: z.string().nullable().describe('What to give and where to find it; null when the platform says nothing more.'),
    type: z
      .enum(FIELD_TYPES)
      .describe(
        '`text`, `url`, `number`, `boolean`; `list`: an array of strings; `json`: any other shape, sent as the platform documents it.',
      ),
    required: z
      .boolean()
      .describe("Whether the connect request must carry it; a secret Herald generates when left out (a webhook's) is not required."),
    secret: z.boolean().describe('A credential (token, password, key): Herald stores it sealed and never shows it again.'),
    default: z.unknown().optional().describe('The value used when the field is left out, when there is one.'),
  })
  .meta({ id: 'ProviderField' });

export const providerSchema = z
  .object({
    identifier: z.string().describe("The platform ID: `provider` in POST /integrations/connect, a channel's `identifier`."),
    name: z.string(),
    connect: z
      .enum(['sign-in', 'form', 'operator'])
      .describe(
        "`sign-in`: POST /integrations/connect answers `{url}` where the person signs in on the platform (the form's fields, if any, go with it: e.g. Mastodon's `instance`); `form`: the fields are the channel's configuration, checked with the platform at once; `operator`: only the operator connects such channels (`herald admin channel create`).",
      ),
    available: z.boolean().describe('Whether channels of this platform can be connected on this server (as in GET /status).'),
    unavailable: z
      .string()
      .optional()
      .describe("When not available: why, and what the operator must set (e.g. the platform app's variables)."),
    help: z.string().describe('How a channel of this platform is connected, in words.'),
    forms: z
      .array(
        z.object({
          title: z
            .string()
            .nullable()
            .describe('The way of connecting, when the platform offers several (e.g. Discord: a webhook or a bot).'),
          fields: z.array(providerFieldSchema),
        }),
      )
      .describe(
        'The fields POST /integrations/connect takes for this platform, generated from its configuration schema (or, for `sign-in`, from what its sign-in takes): one form, or one per way of connecting, of which one is sent. Empty for `operator`.',
      ),
  })
  .meta({ id: 'Provider' });

export type ProviderDescription = z.infer<typeof providerSchema>;
export type ProviderField = z.infer<typeof providerFieldSchema>;
