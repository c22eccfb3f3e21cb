import { z } from 'zod';
import { ValidationError } from '@paymesh/core';
import { currencyCode, objectId, text } from '@paymesh/http';
import {
  countryCode,
  servicePeriod,
  TAX_ITEM_TYPES,
  taxCategory,
  taxPercent,
  taxPreview,
  taxPreviewOf,
  VAT_ID_VALIDATION_MODES,
  type CalculateTaxRequest,
} from '@paymesh/contracts';
import { resource } from '../route-table';
import { billingJson } from './billing-rpc';
import { taxJson } from './tax-rpc';

/** Longest line name the engine keeps; longer descriptions are cut for the preview's lines. */
const LINE_NAME_MAX = 200;

const item = z
  .object({
    description: text(1000),
    quantity: z.number().int().min(1).max(1_000_000),
    /** Minor units; negative for discounts. */
    unitPrice: z.number().int().min(-999_999_999_999).max(999_999_999_999),
    /** Whether `unitPrice` includes tax; default `gross`, as on a draft. */
    amountType: z.enum(['gross', 'net']).default('gross'),
    /** Manual override in percent; absent: the engine decides. */
    taxRate: taxPercent.optional(),
    itemType: z.enum(TAX_ITEM_TYPES),
    category: taxCategory.optional(),
  })
  .strict();

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD');

/**
 * The draft's own payload (`POST /invoices`: `clientId` names the buyer, site optional here), or an
 * explicit `buyer` (country, postcode, VAT ID) for a buyer who is no client yet. The draft fields
 * that do not change the tax (due date, terms, service period, notes) are accepted and ignored.
 */
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
      .describe('the buyer when no clientId names one; given, it is used instead of the client'),
    /** Issue date YYYY-MM-DD (the tax point), as on the draft; default today in the organization's time zone. */
    issueDate: isoDate.optional(),
    /** Same as issueDate (the earlier name); default today. */
    date: isoDate.optional(),
    dueDate: isoDate.optional(),
    paymentTermsDays: z.number().int().min(0).max(365).optional(),
    servicePeriod: servicePeriod.optional(),
    notes: z.string().max(2000).optional(),
    /** With `buyer` only: default `vies`, which the tax service treats as `format` unless the organization has viesEnabled. A client's draft is checked as issuing it would be. */
    vatIdValidation: z.enum(VAT_ID_VALIDATION_MODES).optional(),
  })
  .strict()
  .refine((b) => b.buyer !== undefined || b.clientId !== undefined, {
    message: "give clientId (the draft's client) or buyer",
    path: ['clientId'],
  })
  .refine((b) => b.issueDate === undefined || b.date === undefined || b.issueDate === b.date, {
    message: 'issueDate and date name the same day; give one',
    path: ['date'],
  });

type PreviewBody = z.infer<typeof previewBody>;

/** The CalculateTax request of an invoice draft; each line keeps its own gross or net amount type. */
function requestOf(
  org: { organizationId: string; mode: 'live' | 'test' },
  body: PreviewBody & { buyer: NonNullable<PreviewBody['buyer']> },
): CalculateTaxRequest {
  const { country, postcode, vatId } = body.buyer;
  const date = body.issueDate ?? body.date;
  return {
    organizationId: org.organizationId,
    mode: org.mode,
    currency: body.currency.toUpperCase(),
    ...(date ? { date } : {}),
    vatIdValidation: body.vatIdValidation ?? 'vies',
    buyer: {
      country,
      ...(postcode?.trim() ? { postcode: postcode.trim() } : {}),
      ...(vatId?.trim() ? { vatId: vatId.replace(/[\s.-]/g, '').toUpperCase() } : {}),
    },
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
    summary:
      "Tax of an invoice draft: the draft's payload (clientId names the buyer) or items with an explicit buyer; the totals, breakdown and rate codes issuing it would use; stores nothing",
    body: previewBody,
    async handler({ deps, org, body }) {
      if (body.buyer)
        return taxPreviewOf(
          await taxJson(deps, org, 'calculateTax', {
            body: requestOf(org, { ...body, buyer: body.buyer }),
          }),
        );
      // The draft's payload: billing taxes it for its client exactly as creating the draft would.
      const { siteId, clientId, currency, items, servicePeriod, dueDate, paymentTermsDays } = body;
      // The schema's refinement asks for clientId when no buyer is given.
      if (clientId === undefined)
        throw new ValidationError("clientId: give clientId (the draft's client) or buyer", { field: 'clientId' });
      const issueDate = body.issueDate ?? body.date;
      const draft = { siteId, clientId, currency, items, issueDate, dueDate, paymentTermsDays, servicePeriod };
      return taxPreviewOf((await billingJson(deps, org, 'previewInvoiceTax', { body: draft })).taxCalculation);
    },
  }),
];
