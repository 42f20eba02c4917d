import type { Transporter } from 'nodemailer';

export type MailMessage = { to: string; subject: string; text: string; html?: string | undefined };

/** Where the service's e-mail goes. */
export interface Mailer {
  /** `smtp`: to the recipient; `log`: only into the server's log (no SMTP_URL). */
  readonly delivery: 'smtp' | 'log';
  send(message: MailMessage): Promise<void>;
  close(): void;
}

type WarnLog = { warn(obj: object, msg: string): void };

/**
 * Sends over SMTP with nodemailer (loaded on the first message): `smtp://` or `smtps://`, with
 * the credentials in the URL.
 */
export class SmtpMailer implements Mailer {
  readonly delivery = 'smtp';
  #transport: Promise<Transporter> | undefined;
  constructor(private readonly options: { url: string; from: string }) {}

  async send(message: MailMessage): Promise<void> {
    this.#transport ??= import('nodemailer').then((nodemailer) => nodemailer.createTransport(this.options.url));
    const transport = await this.#transport;
    await transport.sendMail({
      from: this.options.from,
      to: message.to,
      subject: message.subject,
      text: message.text,
      ...(message.html && { html: message.html }),
    });
  }

  close(): void {
    void this.#transport?.then((transport) => transport.close()).catch(() => {});
  }
}

/**
 * Without SMTP_URL: each message is written to the log at `warn`, so a single-machine owner can
 * still read the code and sign in.
 */
export class LogMailer implements Mailer {
  readonly delivery = 'log';
  constructor(private readonly log: WarnLog | undefined) {}

  async send(message: MailMessage): Promise<void> {
    const log = this.log;
    const line = 'Mail is not configured (SMTP_URL is not set): this message was written to the log instead of being sent.';
    if (log) log.warn({ mail: { to: message.to, subject: message.subject, text: message.text } }, line);
    else process.stderr.write(`${line}\nTo: ${message.to}\nSubject: ${message.subject}\n\n${message.text}\n`);
  }

  close(): void {}
}
