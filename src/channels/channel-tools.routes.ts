import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { operationRoute } from '../http/operation-route.ts';
import { getChannelSettings, triggerChannelTool } from './channel-tools.operations.ts';

export const channelToolsRoutes: FastifyPluginAsyncZod = async (app) => {
  operationRoute(app, getChannelSettings);
  operationRoute(app, triggerChannelTool);
};
