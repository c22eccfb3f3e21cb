import { createHash } from 'node:crypto';
import { ConflictError, ErrorCode, UnavailableError, ValidationError } from '@paymesh/core';
import { newEmail } from '../domain/email';
import { emailRequest, type EmailRequest } from '../domain/email-input';
import { EMAIL_ATTACHMENTS, EMAILS, type AttachmentDoc, type EmailDoc } from '../store/collections';
import type { EmailDeps } from './email-deps';

function fingerprintOf(r: EmailRequest): string {
  const h = createHash('sha256');
  h.update(
    JSON.stringify([
      r.source,
      r.to,
      r.cc,
      r.subject,
      r.text,
      r.html,
      r.replyTo,
      // Only when given, so e-mails queued before the field existed keep their fingerprint.
      ...(r.fromName ? [r.fromName] : []),
      ...(r.fromAddress ? [{ fromAddress: r.fromAddress }] : []),
      r.attachments.map((a) => [a.filename, a.contentType, createHash('sha256').update(a.content).digest('hex')]),
    ]),
  );
  return h.digest('hex');
}

/** Same key, same message: the stored e-mail; same key, other message: EMAIL_KEY_REUSED. */
function sameOrConflict(existing: EmailDoc, fingerprint: string): EmailDoc {
  if (existing.fingerprint !== fingerprint) {
    throw new ConflictError('this idempotency key was already used for another message', {
      code: ErrorCode.EMAIL_KEY_REUSED,
    });
  }
  return existing;
}

/**
 * Puts one message in the outbox (idempotent by the caller's key within organization and mode)
 * and returns it; the scheduler sends it. Attachments are stored beside it, one document each.
 */
export async function enqueueEmail(deps: EmailDeps, input: unknown): Promise<{ email: EmailDoc; created: boolean }> {
  const parsed = emailRequest.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join('.') ?? '';
    throw new ValidationError(`${field || 'request'}: ${issue?.message ?? 'invalid'}`, { field });
  }
  const r = parsed.data;
  if (!deps.sender)
    throw new UnavailableError('e-mail is not configured: set SMTP_HOST', { code: ErrorCode.EMAIL_NOT_CONFIGURED });
  const fingerprint = fingerprintOf(r);
  const emails = deps.store.collection<EmailDoc>(EMAILS);
  const key = { organizationId: r.organizationId, mode: r.mode, idempotencyKey: r.idempotencyKey };
  const existing = await emails.findOne(key);
  if (existing) return { email: sameOrConflict(existing, fingerprint), created: false };

  const now = deps.clock.now();
  try {
    const email = await deps.store.transaction(async (tx) => {
      const files = tx.collection<AttachmentDoc>(EMAIL_ATTACHMENTS);
      const refs = [];
      for (const a of r.attachments) {
        const stored = await files.insert({
          organizationId: r.organizationId,
          filename: a.filename,
          contentType: a.contentType,
          size: a.content.length,
          contentBase64: a.content.toString('base64'),
          createdAt: now.toISOString(),
        });
        refs.push({
          attachmentId: stored.id,
          filename: a.filename,
          contentType: a.contentType,
          size: a.content.length,
        });
      }
      const message = {
        to: r.to,
        cc: r.cc,
        subject: r.subject,
        text: r.text,
        html: r.html,
        replyTo: r.replyTo,
        fromName: r.fromName,
        ...(r.fromAddress ? { fromAddress: r.fromAddress } : {}),
        attachments: refs,
      };
      return tx.collection<EmailDoc>(EMAILS).insert(newEmail({ ...key, fingerprint, source: r.source, message }, now));
    });
    deps.logger.info({ emailId: email.id, source: r.source, to: r.to }, 'e-mail queued');
    return { email, created: true };
  } catch (err) {
    if (err instanceof ConflictError && err.code === ErrorCode.DUPLICATE_KEY) {
      // Another call with the same key won the race.
      const winner = await emails.findOne(key);
      if (winner) return { email: sameOrConflict(winner, fingerprint), created: false };
    }
    throw err;
  }
}
