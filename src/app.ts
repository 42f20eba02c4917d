import { analyticsRoutes } from './analytics/analytics.routes.ts';
import { channelConnectRoutes } from './channels/channel-connect.routes.ts';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Redis } from 'ioredis';
import { accountPages } from './accounts/account-pages.routes.ts';
import { signupRoutes } from './accounts/signup.routes.ts';
import { channelToolsRoutes } from './channels/channel-tools.routes.ts';
import { channelsRoutes } from './channels/channels.routes.ts';
import type { Config } from './config.ts';
import { docsRoutes } from './docs/docs.routes.ts';
import { groupsRoutes } from './groups/groups.routes.ts';
import { healthRoutes } from './health/health.routes.ts';
import type { ReadinessCheck } from './health/readiness.ts';
import { registerErrorHandling } from './http/error-handler.ts';
import { createGuard } from './http/guard.plugin.ts';
import { appPages } from './web/app-pages.routes.ts';
import { headersPlugin } from './http/headers.plugin.ts';
import { registerJsonParser } from './http/json-parser.ts';
import { RequestLog, requestChildLogger } from './http/request-log.ts';
import { openapiPlugin } from './http/openapi.plugin.ts';
import { serializerCompiler, validatorCompiler, zodSchemaController } from './http/schema-compilers.ts';
import { mediaFilesRoutes } from './media/media-files.routes.ts';
import { mcpRoutes } from './mcp/mcp.routes.ts';
import { mediaRoutes } from './media/media.routes.ts';
import { uploadLinksRoutes } from './media/upload-links.routes.ts';
import { uploadPageRoutes } from './media/upload-page.routes.ts';
import { oauthRoutes } from './oauth/oauth.routes.ts';
import { notificationsRoutes } from './notifications/notifications.routes.ts';
import { postsRoutes } from './posts/posts.routes.ts';
import { schedulesRoutes } from './schedules/schedules.routes.ts';
import { approvalsRoutes } from './approvals/approvals.routes.ts';
import { seriesRoutes } from './series/series.routes.ts';
import { importsRoutes } from './imports/imports.routes.ts';
import { shortLinksRoutes } from './short-links/short-links.routes.ts';
import type { Clock } from './lib/clock.ts';
import type { Services } from './services.ts';
import { publicUrls } from './status/status.service.ts';
import { statusRoutes } from './status/status.routes.ts';
import { workspacesRoutes } from './workspaces/workspaces.routes.ts';
import { webhooksRoutes } from './webhooks/webhooks.routes.ts';

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
  }
}

export type AppDeps = {
  services: Services;
  clock: Clock;
  redis?: Redis | undefined;
  /** What /readyz asks (the database, Redis, the media store); /healthz and /readyz exist only with it. */
  readiness?: ReadinessCheck[] | undefined;
  /** The process log (see lib/logger.ts); without it, Fastify's `logger` option (none by default). */
  log?: FastifyBaseLogger;
  logger?: FastifyServerOptions['logger'];
};

/** Builds the HTTP application. The server and the tests build the very same one. */
export async function buildApp(config: Config, deps: AppDeps): Promise<FastifyInstance> {
  const options: FastifyServerOptions & { loggerInstance?: FastifyBaseLogger } = {
    logController: new RequestLog(),
    bodyLimit: config.bodyLimit,
    trustProxy: config.trustProxy,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // A connection that sends nothing for this long is dropped (slow-loris uploads); long uploads that keep moving are not.
    connectionTimeout: 120_000,
    schemaController: zodSchemaController,
  };
  if (deps.log) {
    options.loggerInstance = deps.log;
    options.childLoggerFactory = requestChildLogger;
  } else {
    options.logger = deps.logger ?? false;
  }
  const app = Fastify(options).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.decorate('services', deps.services);

  const urls = publicUrls(config.baseUrl);
  const guard = createGuard({
    apiKeys: deps.services.apiKeys,
    access: deps.services.access,
    rateLimit: config.rateLimit,
    redis: deps.redis,
    restChallenge: `Bearer resource_metadata="${urls.oauthMetadata}"`,
    sessions: deps.services.sessions,
  });
  registerErrorHandling(app, { onRequest: guard.notFound });
  registerJsonParser(app);
  await app.register(headersPlugin, { policyUrl: urls.deprecationPolicy, deprecations: config.deprecations, now: () => deps.clock.now() });
  // Before any route: each route's guard hook is made as the route is declared.
  await app.register(guard.plugin);
  await app.register(openapiPlugin, { baseUrl: config.baseUrl });

  if (deps.readiness) await app.register(healthRoutes, { checks: deps.readiness });
  await app.register(docsRoutes, { baseUrl: config.baseUrl });
  await app.register(shortLinksRoutes);
  await app.register(mediaFilesRoutes);
  await app.register(uploadPageRoutes, { baseUrl: config.baseUrl, clock: deps.clock });
  await app.register(mcpRoutes, { baseUrl: config.baseUrl, clock: deps.clock, rateLimit: config.rateLimit });
  const web = { sessions: deps.services.sessions, secureCookies: config.baseUrl.startsWith('https:') };
  await app.register(accountPages, { web, clock: deps.clock });
  await app.register(appPages, { web, developersUrl: urls.developers, baseUrl: config.baseUrl });
  await app.register(oauthRoutes, { web, baseUrl: config.baseUrl, trustProxy: Boolean(config.trustProxy) });
  await app.register(channelConnectRoutes);
  await app.register(
    async (api) => {
      await api.register(statusRoutes, { baseUrl: config.baseUrl, clock: deps.clock });
      await api.register(workspacesRoutes);
      await api.register(channelsRoutes);
      await api.register(groupsRoutes);
      await api.register(channelToolsRoutes);
      await api.register(postsRoutes);
      await api.register(schedulesRoutes);
      await api.register(approvalsRoutes);
      await api.register(seriesRoutes);
      await api.register(importsRoutes);
      await api.register(notificationsRoutes);
      await api.register(analyticsRoutes);
      await api.register(mediaRoutes);
      await api.register(uploadLinksRoutes);
      await api.register(webhooksRoutes);
      await api.register(signupRoutes, { baseUrl: config.baseUrl, web });
    },
    { prefix: '/public/v1' },
  );
  return app;
}
