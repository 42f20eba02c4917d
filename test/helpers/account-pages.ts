import { expect } from 'vitest';
import { unique, type TestApp } from './app.ts';
import { codeOf, type startMailServer } from './mail-server.ts';
import { WebAgent } from './web-agent.ts';

type MailServer = Awaited<ReturnType<typeof startMailServer>>;

/** Signs in through the pages with the mailed code; lands on the keys page. */
export async function signInWithCode(t: TestApp, mail: MailServer, email: string): Promise<WebAgent> {
  const agent = new WebAgent(t);
  const form = await agent.get('/account/sign-in');
  expect(form.statusCode).toBe(200);
  const waiting = mail.next(email);
  const sent = await agent.post('/account/sign-in', { email }, { from: form.body });
  expect(sent.statusCode).toBe(303);
  const codePage = await agent.get(sent.headers.location as string);
  let received = await waiting;
  // Past an invitation mailed to the same address.
  while (!received.subject.startsWith('Your Herald code')) received = await mail.next(email);
  const code = codeOf(received);
  const verified = await agent.post('/account/sign-in/verify', { email, code }, { from: codePage.body });
  expect(verified.statusCode, verified.body).toBe(303);
  expect(verified.headers.location).toBe('/account/keys');
  return agent;
}

/** A user who owns a workspace, signed in through the pages with the mailed code. */
export async function signedInOwner(
  t: TestApp,
  mail: MailServer,
): Promise<{ agent: WebAgent; email: string; userId: string; workspaceId: string; workspaceName: string }> {
  const email = `${unique('owner')}@example.test`;
  const user = await t.services.users.create({ email });
  const ws = await t.services.workspaces.create({ name: unique('Acme'), ownerId: user.id });
  const agent = await signInWithCode(t, mail, email);
  return { agent, email, userId: user.id, workspaceId: ws.id, workspaceName: ws.name };
}
