import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import * as z from 'zod';
import { apiErrorSchema, authErrors, showorgHeader } from '../http/common.schema.ts';
import { operationRoute } from '../http/operation-route.ts';
import { listChannels } from './channels.operations.ts';
import type { Channel } from './channels.service.ts';
import {
  channelChangesSchema,
  channelIdParams,
  channelSchema,
  connectBodySchema,
  connectResultSchema,
  deleteChannelQuery,
  reconnectBodySchema,
} from './channels.schema.ts';
import { providerSchema } from './providers.schema.ts';
import { listProviders } from './providers.service.ts';

/** Connections per key per rate-limit window: each one calls the platform (RATE_LIMIT_ROUTES can change it). */
export const CONNECT_QUOTA = 30;

export const channelsRoutes: FastifyPluginAsyncZod = async (app) => {
  const present = (channel: Channel): z.infer<typeof channelSchema> => app.services.channels.present(channel);
  const presentResult = (result: Awaited<ReturnType<typeof app.services.connect.connect>>): z.infer<typeof connectResultSchema> =>
    result.kind === 'redirect'
      ? { url: result.url }
      : {
          integration: present(result.channel),
          reconnected: result.reconnected,
          ...(result.secret !== undefined && { secret: result.secret }),
        };

  operationRoute(app, listChannels);

  app.get(
    '/providers',
    {
      config: { scope: 'channels:read' },
      schema: {
        tags: ['Channels'],
        summary: 'List the platforms channels can be connected to',
        description:
          "Every platform this server offers: its `identifier` (the `provider` of POST /integrations/connect), how a channel of it is connected (`sign-in` through the platform's page, or a `form` of credentials checked at once), whether the operator's setup allows it now, and the fields the connect request takes, generated from the platform's own configuration schema (the one the connect request is checked against): name, label, type, whether required, whether a secret.",
        headers: showorgHeader,
        response: { 200: z.array(providerSchema), ...authErrors },
      },
    },
    async () => listProviders(app.services.channels.platformApps),
  );

  app.post(
    '/integrations/connect',
    {
      config: { scope: 'channels:write', quota: CONNECT_QUOTA },
      schema: {
        tags: ['Channels'],
        summary: 'Connect a channel',
        description:
          "Platforms with a browser sign-in (`mastodon` with `instance`; `linkedin`, `linkedin-page`, `x`, `threads`, `reddit`, `facebook`, `instagram`, `instagram-standalone`, `youtube`, `google-business`, and the others the README lists as signed in through the operator's app) answer `{url}`: open it, sign in, and the platform comes back to Herald, which creates the channel (for `linkedin-page` and `facebook`, after the person picks one of their pages when they administer several; for `instagram`, one of the Instagram accounts linked to their pages; for `youtube` and `google-business`, one of their channels or business locations). These need the operator's app for that platform: without it they answer 400 `provider_unavailable` saying which variables to set. The link works once, for 15 minutes, and only while the key that asked may still connect channels. Platforms with a token, key or password take the credentials in the body (the fields of the platform's configuration, see the README; `lemmy` takes `instance`, `username`, `password` and, for an account with two-factor codes, the current `totp`); Herald checks them with the platform at once and creates the channel with the account's name, handle and picture. When the check fails, nothing is stored and the answer says what happened: 400 `platform_refused` when the platform refused the credentials or answered another client error (with its reason), 400 `outbound_refused` when Herald's outbound policy refused the platform's address (nothing was sent), 502 `platform_unreachable` when the platform could not be reached (connection refused, a name that does not resolve, no answer in time), 502 `platform_transient` when it answered with a server error, 502 `platform_rate_limited` when it asks to wait (`Retry-After`). The same answers come from a browser sign-in's steps. A `webhook` channel connected without `secret` gets a generated Standard Webhooks signing secret (`whsec_…`), returned once in the answer's `secret` and never shown again. Connecting an account the workspace already has reconnects that channel (same id, `reconnected: true`). A plan whose channels are all in use answers 402; a key limited to certain channels cannot connect new ones (403).",
        headers: showorgHeader,
        body: connectBodySchema,
        response: { 200: connectResultSchema, ...authErrors, 402: apiErrorSchema, 404: apiErrorSchema, 502: apiErrorSchema },
      },
    },
    async (request) => {
      const { provider, name, group, ...fields } = request.body;
      return presentResult(await app.services.connect.connect(request.access!, { provider, name, group, fields }));
    },
  );

  app.post(
    '/integrations/:id/reconnect',
    {
      config: { scope: 'channels:write', quota: CONNECT_QUOTA },
      schema: {
        tags: ['Channels'],
        summary: 'Reconnect a channel',
        description:
          'Keeps the channel id, its posts and settings. With new credentials (token platforms; a field given as null is removed) they are checked with the platform and must belong to the same account; a failed check answers as POST /integrations/connect does (`platform_refused`, `outbound_refused`, `platform_unreachable`…). On browser sign-in platforms, a body without credentials answers `{url}` to sign in again as the same account. The channel is enabled again.',
        headers: showorgHeader,
        params: channelIdParams,
        body: reconnectBodySchema,
        response: { 200: connectResultSchema, ...authErrors, 404: apiErrorSchema, 502: apiErrorSchema },
      },
    },
    async (request) => {
      return presentResult(await app.services.connect.reconnect(request.access!, request.params.id, request.body));
    },
  );

  app.patch(
    '/integrations/:id',
    {
      config: { scope: 'channels:write' },
      schema: {
        tags: ['Channels'],
        summary: 'Rename a channel, file it under a client group, set its preferred settings',
        description:
          "Fields left out are kept; `group: null` and `preferredSettings: null` clear them. `preferredSettings` are checked against the channel's settings schema (GET /integration-settings/:id) and apply to posts that leave a setting out.",
        headers: showorgHeader,
        params: channelIdParams,
        body: channelChangesSchema,
        response: { 200: channelSchema, ...authErrors, 404: apiErrorSchema },
      },
    },
    async (request) => {
      const { name, group, preferredSettings } = request.body;
      return present(await app.services.channels.update(request.access!, request.params.id, { name, groupId: group, preferredSettings }));
    },
  );

  app.delete(
    '/integrations/:id',
    {
      config: { scope: 'channels:write' },
      schema: {
        tags: ['Channels'],
        summary: 'Delete a channel',
        description:
          "Deletes the channel and keeps its posts. While posts are scheduled on it the answer is 409 `channel_has_scheduled_posts` naming them (`posts`); with `force=true` they are moved to draft, so none is published. A post being published at that moment refuses it with 409 `post_publishing`. The deleted channel leaves GET /integrations, GET /integration-settings/:id and the plan's channel count, and publishes nothing; its drafts and published history stay readable through GET /posts and GET /posts/:id (their `integration` keeps the deleted channel's id and platform) and can be deleted, but scheduling or creating posts for it answers 409 `channel_deleted`. Connecting the same account again (POST /integrations/connect) restores the channel under the same id, with its name, client group, preferred settings and posts, and new credentials.",
        headers: showorgHeader,
        params: channelIdParams,
        querystring: deleteChannelQuery,
        response: { 200: channelSchema.extend({ deleted: z.literal(true) }), ...authErrors, 404: apiErrorSchema, 409: apiErrorSchema },
      },
    },
    async (request) => {
      const deleted = await app.services.channels.deleteFor(request.access!, request.params.id, { force: request.query.force === 'true' });
      return { ...present(deleted), deleted: true as const };
    },
  );
};
