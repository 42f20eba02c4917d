import type { FastifyReply, FastifyRequest } from 'fastify';
import { mayManageMembers } from '../accounts/members.service.ts';
import type { PageChrome } from './layout.ts';
import { csrfToken, type WebOptions } from './session.plugin.ts';

/** The signed-in pages, in the header's order (then the documentation); Members and Webhooks only for those who manage them. */
const PAGES = [
  { href: '/app', label: 'Calendar' },
  { href: '/app/media', label: 'Media' },
  { href: '/app/channels', label: 'Channels' },
  { href: '/app/analytics', label: 'Analytics' },
  { href: '/app/notifications', label: 'Notifications' },
  { href: '/account/keys', label: 'Developer settings' },
  { href: '/account/members', label: 'Members', managers: true },
  { href: '/account/webhooks', label: 'Webhooks', managers: true },
  { href: '/account/approvals', label: 'Approvals' },
  { href: '/account/apps', label: 'Apps you allowed' },
  { href: '/account/developer-apps', label: 'Your apps' },
  { href: '/developers', label: 'Developers' },
  { href: '/docs', label: 'API reference' },
];

/** The app's page at `path` (/app/media/… → /app/media), for the header's current link and the title; /app itself otherwise. */
export function appSection(path: string): { href: string; label: string } {
  const top = path.split(/[?#]/)[0]!.split('/').slice(0, 3).join('/');
  const found = PAGES.find((p) => p.href.startsWith('/app/') && p.href === top);
  return found ?? PAGES[0]!;
}

/** The header of a signed-in page at `path` (the page the workspace switcher comes back to). */
export function pageChrome(request: FastifyRequest, reply: FastifyReply, web: WebOptions, path: string): PageChrome {
  const account = request.account!;
  const manager = account.current !== null && mayManageMembers(account.current.role);
  return {
    nav: PAGES.filter((p) => !p.managers || manager).map((p) => ({ href: p.href, label: p.label, current: p.href === path })),
    workspaces: account.memberships.map((m) => ({ id: m.workspace.id, name: m.workspace.name })),
    currentWorkspaceId: account.current?.workspace.id ?? null,
    back: path,
    csrf: csrfToken(request, reply, web),
    email: account.session.email,
  };
}
