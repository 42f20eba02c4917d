import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { operationRoute } from '../http/operation-route.ts';
import { approvePost, getApprovalSettings, listAwaitingApproval, rejectPost, setApprovalSettings } from './approvals.operations.ts';

/** Approval before publishing: the setting, the approvers' list and their decisions. */
export const approvalsRoutes: FastifyPluginAsyncZod = async (app) => {
  operationRoute(app, getApprovalSettings);
  operationRoute(app, setApprovalSettings);
  operationRoute(app, listAwaitingApproval);
  operationRoute(app, approvePost);
  operationRoute(app, rejectPost);
};
