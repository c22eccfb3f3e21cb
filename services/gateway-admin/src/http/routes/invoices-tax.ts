import { z } from 'zod';
import { currencyCode, objectId, text } from '@paymesh/http';
import {
  countryCode,
  TAX_ITEM_TYPES,
  taxCalculation,
  taxCategory,
  taxPercent,
  taxPreview,
  taxPreviewOf,
  VAT_ID_VALIDATION_MODES,
  type CalculateTaxRequest,
} from '@paymesh/contracts';
import { ValidationError } from '@paymesh/core';
import { resource } from '../route-table';
import { taxJson } from './tax-rpc';

/** Longest line name the engine keeps; longer descriptions are cut for the preview's lines. */
const LINE_NAME_MAX = 200;

const item = z
  .object({
    description: text(1000),
    quantity: z.number().int().min(1).max(1_000_000),
    /** Minor units; negative for discounts. */
    unitPrice: z.number().int().min(-999_999_999_999).max(999_999_999_999),
    amountType: z.enum(['gross', 'net']),
    /** Manual override in percent; absent: the engine decides. */
    taxRate: taxPercent.optional(),
    itemType: z.enum(TAX_ITEM_TYPES),
    category: taxCategory.optional(),
  })
  .strict();

const previewBody = z
  .object({
    siteId: objectId('siteId').optional(),
    clientId: objectId('clientId').optional(),
    currency: currencyCode,
    items: z.array(item).min(1).max(500),
    buyer: z
      .object({ country: countryCode, postcode: text(20).optional(), vatId: text(30).optional() })
      .strict()
      .optional()
      .describe('required until billing clients can supply the buyer'),
    /** Issue date YYYY-MM-DD (the tax point); default today (UTC). */
    date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD').optional(),
    /** Default `vies`, which the tax service treats as `format` unless the organization has viesEnabled. */
    vatIdValidation: z.enum(VAT_ID_VALIDATION_MODES).optional(),
  })
  .strict();

type PreviewBody = z.infer<typeof previewBody>;

/** The CalculateTax request of an invoice draft; each line keeps its own gross or net amount type. */
function requestOf(org: { organizationId: string; mode: 'live' | 'test' }, body: PreviewBody): CalculateTaxRequest {
  if (!body.buyer) {
    throw new ValidationError(
      body.clientId
        ? 'body.buyer is required: a clientId alone cannot supply the buyer yet (billing clients are not readable by the tax preview); send buyer.country (and buyer.vatId) as on the client'
        : 'body.buyer is required',
      { field: 'buyer' },
    );
  }
  const { country, postcode, vatId } = body.buyer;
  return {
    organizationId: org.organizationId,
    mode: org.mode,
    currency: body.currency.toUpperCase(),
    ...(body.date ? { date: body.date } : {}),
    vatIdValidation: body.vatIdValidation ?? 'vies',
    buyer: { country, ...(postcode?.trim() ? { postcode: postcode.trim() } : {}), ...(vatId?.trim() ? { vatId: vatId.replace(/[\s.-]/g, '').toUpperCase() } : {}) },
    lines: body.items.map((i) => ({
      name: i.description.slice(0, LINE_NAME_MAX),
      quantity: i.quantity,
      unitPrice: i.unitPrice,
      amountType: i.amountType,
      itemType: i.itemType,
      ...(i.taxRate !== undefined ? { taxRate: i.taxRate } : {}),
      ...(i.category ? { category: i.category } : {}),
    })),
  };
}

const invoices = resource({ tag: 'Invoices', scopePrefix: 'invoice' });

/** Tax preview of an invoice draft: the same engine, rates and rounding as issuing it. */
export const invoiceTaxRoutes = [
  invoices({
    method: 'POST',
    path: '/invoices/preview-tax',
    operationId: 'previewInvoiceTax',
    response: taxPreview,
    status: 200,
    errors: [503],
    summary: 'Tax of an invoice draft (items, buyer, issue date): totals, breakdown and rate codes the backend will use; stores nothing',
    body: previewBody,
    async handler({ deps, org, body }) {
      return taxPreviewOf(await taxJson(deps, org, 'calculateTax', taxCalculation, { body: requestOf(org, body) }));
    },
  }),
];
