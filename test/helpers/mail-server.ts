import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterAll } from 'vitest';

export type ReceivedMail = { to: string; subject: string; text: string };

/**
 * A real SMTP server on loopback, in the test process. Messages are parsed as they arrive;
 * tests wait for the one sent to an address, or check that none came.
 */
export async function startMailServer(): Promise<{
  url: string;
  messages: ReceivedMail[];
  /** Resolves with the first message to `to` not yet taken. */
  next(to: string): Promise<ReceivedMail>;
  to(address: string): ReceivedMail[];
  close(): Promise<void>;
}> {
  const messages: ReceivedMail[] = [];
  const taken = new Set<ReceivedMail>();
  const waiting: Array<{ to: string; resolve: (mail: ReceivedMail) => void }> = [];
  const deliver = () => {
    for (const waiter of [...waiting]) {
      const mail = messages.find((m) => m.to === waiter.to && !taken.has(m));
      if (!mail) continue;
      taken.add(mail);
      waiting.splice(waiting.indexOf(waiter), 1);
      waiter.resolve(mail);
    }
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          for (const rcpt of session.envelope.rcptTo)
            messages.push({ to: rcpt.address.toLowerCase(), subject: parsed.subject ?? '', text: parsed.text ?? '' });
          deliver();
          callback();
        })
        .catch((error: Error) => callback(error));
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.server.address();
  if (!address || typeof address === 'string') throw new Error('The SMTP server has no port.');
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  afterAll(close);
  return {
    url: `smtp://127.0.0.1:${address.port}`,
    messages,
    next: (to) =>
      new Promise((resolve) => {
        waiting.push({ to: to.toLowerCase(), resolve });
        deliver();
      }),
    to: (addr) => messages.filter((m) => m.to === addr.toLowerCase()),
    close,
  };
}

/** The code a sign-in mail carries. */
export function codeOf(mail: ReceivedMail): string {
  const match = /^\s+(\d{8})\s*$/m.exec(mail.text);
  if (!match) throw new Error(`No code in: ${mail.text}`);
  return match[1]!;
}
