import nodemailer, { type Transporter } from 'nodemailer';
import addressparser from 'nodemailer/lib/addressparser';
import type { EmailMessage, SmtpOutcome } from '../domain/email';

/** Where and as whom e-mail is sent (config: SMTP_* and MAIL_FROM). */
export interface SmtpSettings {
  host: string;
  port: number;
  /** TLS from the first byte (port 465); otherwise STARTTLS when the server offers it. */
  secure: boolean;
  user?: string | undefined;
  pass?: string | undefined;
  from: string;
  timeoutMs: number;
}

/** One message ready for the wire: the queued message, its attachments with their bytes and its Message-ID. */
export interface OutgoingEmail extends Omit<EmailMessage, 'attachments'> {
  attachments: Array<{ filename: string; contentType: string; content: Buffer }>;
  /** Message-ID header: stable across retries so a receiver can tell a repeat. */
  messageId: string;
}

/** Hands a message to an SMTP server; never throws (the outcome says what happened). */
export interface EmailSender {
  send(mail: OutgoingEmail): Promise<SmtpOutcome>;
  close(): Promise<void>;
}

interface SmtpError {
  message?: string;
  responseCode?: number;
  response?: string;
}

/** Sends with nodemailer, one SMTP connection per message. */
export class SmtpEmailSender implements EmailSender {
  private readonly transport: Transporter;
  private readonly from: string;
  /** MAIL_FROM's address, sent under a merchant's display name. */
  private readonly fromAddress: string;

  constructor(settings: SmtpSettings) {
    this.from = settings.from;
    this.fromAddress = addressparser(settings.from, { flatten: true })[0]?.address ?? settings.from;
    this.transport = nodemailer.createTransport({
      host: settings.host,
      port: settings.port,
      secure: settings.secure,
      ...(settings.user ? { auth: { user: settings.user, pass: settings.pass ?? '' } } : {}),
      connectionTimeout: settings.timeoutMs,
      greetingTimeout: settings.timeoutMs,
      socketTimeout: settings.timeoutMs,
    });
  }

  async send(mail: OutgoingEmail): Promise<SmtpOutcome> {
    const started = Date.now();
    const address = mail.fromAddress ?? this.fromAddress;
    const fromHeader = mail.fromName ? { name: mail.fromName, address } : mail.fromAddress ? address : this.from;
    try {
      const info = await this.transport.sendMail({
        // The merchant's name in front of the platform's address, or of its own verified one: the
        // receiving server checks the address (SPF, DKIM, DMARC), the reader sees who sent it.
        from: fromHeader,
        ...(mail.fromAddress ? { envelope: { from: this.fromAddress, to: [...mail.to, ...mail.cc] } } : {}),
        to: mail.to,
        cc: mail.cc,
        subject: mail.subject,
        text: mail.text,
        ...(mail.html !== null ? { html: mail.html } : {}),
        ...(mail.replyTo ? { replyTo: mail.replyTo } : {}),
        messageId: mail.messageId,
        attachments: mail.attachments.map((a) => ({
          filename: a.filename,
          contentType: a.contentType,
          content: a.content,
        })),
      });
      // Accepted for at least one recipient (all refused throws): sending again would repeat it.
      const rejected = (info.rejected ?? []).map((r: string | { address: string }) =>
        typeof r === 'string' ? r : r.address,
      );
      const note = rejected.length > 0 ? ` (refused: ${rejected.join(', ')})` : '';
      return {
        ok: true,
        smtpResponse: `${info.response}${note}`,
        responseCode: 250,
        error: '',
        durationMs: Date.now() - started,
      };
    } catch (err) {
      const e = (err ?? {}) as SmtpError;
      return {
        ok: false,
        smtpResponse: e.response ?? '',
        responseCode: typeof e.responseCode === 'number' ? e.responseCode : 0,
        error: e.response ?? e.message ?? String(err),
        durationMs: Date.now() - started,
      };
    }
  }

  async close(): Promise<void> {
    this.transport.close();
  }
}
