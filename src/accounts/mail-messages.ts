import type { MailMessage } from './mailer.ts';

/** The sign-in page, pre-filled with the address (and the code, when given). */
export function signInUrl(baseUrl: string, email: string, code?: string): string {
  const query = new URLSearchParams({ email, ...(code && { code }) });
  return `${baseUrl}/account/sign-in?${query.toString()}`;
}

export function signInCodeMessage(input: {
  baseUrl: string;
  email: string;
  code: string;
  newAccount: boolean;
  ttlMinutes: number;
}): MailMessage {
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

/** One message whether or not the address has an account: joining waits for its answer either way. */
export function invitationMessage(input: {
  baseUrl: string;
  email: string;
  workspaceName: string;
  role: string;
  invitedBy: string;
}): MailMessage {
  return {
    to: input.email,
    subject: `You are invited to ${input.workspaceName} on Herald`,
    text: [
      `${input.invitedBy} invited you to the workspace "${input.workspaceName}" as ${input.role}.`,
      '',
      'Sign in with this address (we send you a one-time code), then accept or decline the invitation:',
      signInUrl(input.baseUrl, input.email),
      '',
      'Nothing changes for you unless you accept. If you do not know the sender, decline it or ignore this message.',
    ].join('\n'),
  };
}
