import { z } from 'zod';
import { objectIdString, page, testMode, timestamp } from './common';

/** A site; its IPN signing secret only in the answers of create and rotate. */
export const site = z.object({
  id: objectIdString,
  organizationId: objectIdString,
  name: z.string(),
  url: z.string(),
  frontendDomains: z.array(z.string()),
  testMode,
  branding: z.object({ logo: z.string().nullable(), primaryColor: z.string().nullable() }),
  checkoutSettings: z.object({ vatIdValidation: z.string().describe('none, format or vies') }),
  webhookSigningSecretHint: z.string().describe('last characters of the signing secret, to recognise it'),
  webhookSigningSecret: z.string().optional().describe('whsec_ secret; only on creation and rotation'),
  createdAt: timestamp,
  updatedAt: timestamp,
});

export const sitePage = page(site);

export const siteInvoicingSettings = z.object({
  siteId: objectIdString,
  invoicePrefix: z.string().nullable().describe('null: the organization layout applies'),
  creditNotePrefix: z.string().nullable(),
  effective: z.object({ invoicePrefix: z.string(), creditNotePrefix: z.string() }),
});
