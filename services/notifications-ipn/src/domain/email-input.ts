import { objectId as objectIdSchema } from '@paymesh/core';
import { z } from 'zod';

/** Largest total size of one message's attachments (bytes); they are kept base64 in the store. */
export const MAX_ATTACHMENT_BYTES = 2 * 1024 * 1024;
export const MAX_RECIPIENTS = 20;

const objectId = objectIdSchema();
const address = z.string().max(254).email('must be an e-mail address');
const oneLine = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[^\r\n]*$/, 'must be one line');

/** What SendEmail accepts (after the gRPC message is mapped to plain values). */
export const emailRequest = z
  .object({
    organizationId: objectId,
    mode: z.enum(['live', 'test']),
    idempotencyKey: z.string().min(1).max(200),
    source: z.object({ kind: z.enum(['invoice', 'credit_note', 'portal_otp']), id: objectId }),
    to: z.array(address).min(1).max(MAX_RECIPIENTS),
    cc: z.array(address).max(MAX_RECIPIENTS),
    subject: oneLine(300),
    text: z.string().min(1).max(100_000),
    html: z.string().max(500_000).nullable(),
    replyTo: address.nullable(),
    /** Display name of the From header (the merchant's name). */
    fromName: oneLine(200).nullable().default(null),
    /** Address of the From header (a sender the caller verified); null: MAIL_FROM's. */
    fromAddress: address.nullable().default(null),
    attachments: z
      .array(
        z.object({
          filename: oneLine(200).regex(/^[^/\\"]+$/, 'must be a file name without / \\ or "'),
          contentType: z
            .string()
            .regex(/^[a-z0-9.+-]+\/[a-z0-9.+-]+$/i, 'must be a media type such as application/pdf'),
          content: z.instanceof(Buffer),
        }),
      )
      .max(10),
  })
  .refine((r) => r.attachments.reduce((n, a) => n + a.content.length, 0) <= MAX_ATTACHMENT_BYTES, {
    message: `attachments must not exceed ${MAX_ATTACHMENT_BYTES} bytes in total`,
    path: ['attachments'],
  });
export type EmailRequest = z.infer<typeof emailRequest>;
