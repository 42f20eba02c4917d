import type { MailMessage } from './mailer.ts';

/** The sign-in page, pre-filled with the address (and the code, when given). */
export function signInUrl(baseUrl: string, email: string, code?: string): string {
  const query = new URLSearchParams({ email, ...(code && { code }) });
  return `${baseUrl}/account/sign-in?${query.toString()}`;
}

export function signInCodeMessage(input: { baseUrl: string; email: string; code: string; newAccount: boolean; ttlMinutes: number }): MailMessage {
  const link = signInUrl(input.baseUrl, input.email, input.code);
  const action = input.newAccount ? 'create your Herald account' : 'sign in to Herald';
  return {
    to: input.email,
    subject: `Your Herald code: ${input.code}`,
    text: [
      `Your code to ${action} is:`,
      '',
      `    ${input.code}`,
      '',
      `Or open this link, which fills it in for you:`,
      link,
      '',
      `The code works once and expires in ${input.ttlMinutes} minutes. If you did not ask for it, ignore this message.`,
    ].join('\n'),
  };
}

export function invitationMessage(input: { baseUrl: string; email: string; workspaceName: string; role: string; invitedBy: string; existingUser: boolean }): MailMessage {
  const link = signInUrl(input.baseUrl, input.email);
  return {
    to: input.email,
    subject: input.existingUser ? `You were added to ${input.workspaceName} on Herald` : `You are invited to ${input.workspaceName} on Herald`,
    text: [
      input.existingUser
        ? `${input.invitedBy} added you to the workspace "${input.workspaceName}" as ${input.role}.`
        : `${input.invitedBy} invited you to the workspace "${input.workspaceName}" as ${input.role}.`,
      '',
      `Sign in with this address to ${input.existingUser ? 'open it' : 'accept'}:`,
      link,
    ].join('\n'),
  };
}
