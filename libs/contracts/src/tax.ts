import { z } from 'zod';
import { countryCode } from './settings';
import { objectId } from './object-id';
import { listPage } from './list-page';

/**
 * Shapes of the tax service's records and of its one engine's input and output. The tax service
 * validates with these, gateways document and check responses with them, and gRPC carries them as
 * JSON (`*_json` fields of proto/tax/v1/tax.proto), so there is one definition of each shape.
 * Money is always an integer in minor units; percentages are numbers with at most two decimals.
 */

/** What a line sells; decides the place-of-supply rule. */
export const TAX_ITEM_TYPES = ['digital_service', 'goods', 'service', 'shipping'] as const;
export type TaxItemType = (typeof TAX_ITEM_TYPES)[number];

/** Kinds of VAT rate a member state levies. */
export const RATE_TYPES = ['standard', 'reduced', 'super_reduced', 'zero'] as const;
export type RateType = (typeof RATE_TYPES)[number];

/** How a buyer VAT ID may be used: `vies` alone can make the buyer a business (reverse charge). */
export const VAT_ID_VALIDATION_MODES = ['none', 'format', 'vies'] as const;
export type VatIdValidationMode = (typeof VAT_ID_VALIDATION_MODES)[number];

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD');
/** A day `YYYY-MM-DD` (shape only; the tax service checks it is a calendar day). */
export const taxDate = isoDate;
/** Percent 0..100 with at most two decimals (25.5, 5.5, 2.1). */
export const taxPercent = z
  .number()
  .min(0)
  .max(100)
  .refine((n) => Math.abs(Math.round(n * 100) - n * 100) < 1e-9, 'must have at most two decimals');
/** Tax category of a line or rate (`books`, `ebooks`, `food`...): lower-case letters, digits, `_`. */
export const taxCategory = z
  .string()
  .min(1)
  .max(50)
  .regex(/^[a-z0-9_]+$/, 'must be lower-case letters, digits and _');
/** Code shown to buyers and kept in the ledger (`VAT_DE_STANDARD`, `REVERSE_CHARGE`). */
export const taxRateCode = z
  .string()
  .min(1)
  .max(50)
  .regex(/^[A-Z0-9_]+$/, 'must be upper-case letters, digits and _');

// ---------------------------------------------------------------------------------------------
// Rates and rules (stored per organization and data mode by the tax service)

/** An effective-dated VAT rate. `validTo` is exclusive (the first day the rate no longer applies). */
export const taxRateRecord = z.object({
  id: objectId,
  code: taxRateCode,
  country: z.string().length(2),
  rateType: z.enum(RATE_TYPES),
  percent: z.number(),
  /** Categories this rate applies to; empty: the country's general rate of its type. */
  categories: z.array(z.string()),
  validFrom: isoDate,
  validTo: isoDate.nullable(),
  /** true: one of the managed defaults (kept in sync by replace-defaults); false: the merchant's own. */
  managed: z.boolean(),
  /** Where the figure comes from (managed defaults name their legal/official source). */
  source: z.string().nullable(),
  description: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type TaxRateRecord = z.infer<typeof taxRateRecord>;

export const taxRateCreate = z
  .object({
    code: taxRateCode,
    country: countryCode,
    rateType: z.enum(RATE_TYPES),
    percent: taxPercent,
    categories: z.array(taxCategory).max(50).default([]),
    validFrom: isoDate,
    validTo: isoDate.nullable().default(null),
    description: z.string().trim().max(500).nullable().default(null),
  })
  .strict();
export type TaxRateCreate = z.infer<typeof taxRateCreate>;

export const taxRateUpdate = taxRateCreate.partial().strict();
export type TaxRateUpdate = z.infer<typeof taxRateUpdate>;

/**
 * A rule chooses the rate type for lines it matches. The most specific match wins (country, then
 * category, then item type; ties by higher `priority`). `country` null matches every country.
 */
export const taxRuleRecord = z.object({
  id: objectId,
  name: z.string(),
  itemType: z.enum(TAX_ITEM_TYPES).nullable(),
  category: z.string().nullable(),
  country: z.string().length(2).nullable(),
  rateType: z.enum(RATE_TYPES),
  priority: z.number().int(),
  /** true: created by populate-defaults. */
  managed: z.boolean(),
  description: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type TaxRuleRecord = z.infer<typeof taxRuleRecord>;

export const taxRuleCreate = z
  .object({
    name: z.string().trim().min(1).max(200),
    itemType: z.enum(TAX_ITEM_TYPES).nullable().default(null),
    category: taxCategory.nullable().default(null),
    country: countryCode.nullable().default(null),
    rateType: z.enum(RATE_TYPES),
    priority: z.number().int().min(-1000).max(1000).default(0),
    description: z.string().trim().max(500).nullable().default(null),
  })
  .strict();
export type TaxRuleCreate = z.infer<typeof taxRuleCreate>;

export const taxRuleUpdate = taxRuleCreate.partial().strict();
export type TaxRuleUpdate = z.infer<typeof taxRuleUpdate>;

/** Page size of rate and rule lists: default 50, at most 100 (larger values are refused, not capped). */
const listPaging = {
  page: z.number().int().min(1).max(1_000_000).default(1),
  limit: z.number().int().min(1).max(100).default(50),
};

/** Filters of the rate list (body of `ListTaxRates`); sorted by country, code, validFrom. */
export const taxRateListQuery = z
  .object({
    ...listPaging,
    country: countryCode.optional(),
    rateType: z.enum(RATE_TYPES).optional(),
    managed: z.boolean().optional(),
    /** Only rates valid that day (validFrom <= day < validTo). */
    validOn: isoDate.optional(),
    code: taxRateCode.optional(),
  })
  .strict();
export type TaxRateListQuery = z.infer<typeof taxRateListQuery>;

/** Paging of the rule list (body of `ListTaxRules`); most specific rules first, then higher priority. */
export const taxRuleListQuery = z.object(listPaging).strict();
export type TaxRuleListQuery = z.infer<typeof taxRuleListQuery>;

export const taxRatePage = listPage(taxRateRecord);
export type TaxRatePage = z.infer<typeof taxRatePage>;
export const taxRulePage = listPage(taxRuleRecord);
export type TaxRulePage = z.infer<typeof taxRulePage>;

/** Answer of deleting one rate or rule. */
export const taxRecordDeleted = z.object({ id: objectId, deleted: z.literal(true) });
/** Answer of deleting every rate (or rule) of the organization and data mode. */
export const taxDeletedCount = z.object({ deleted: z.number().int().min(0) });

/** Why replace-defaults left a managed default alone. */
export const TAX_DEFAULT_SKIP_REASONS = [
  /** The merchant edited this default: their version (now custom) stays as it is. */
  'customized',
  /** A custom rate of the same code starts that day or covers part of the default's period. */
  'conflicts_with_custom',
] as const;

/** Answer of `ReplaceDefaultTaxRates`: what the sync with the managed defaults changed. */
export const replaceDefaultTaxRatesResult = z.object({
  /** Version of the managed defaults the book now follows. */
  defaultsVersion: z.string(),
  created: z.array(taxRateRecord),
  updated: z.array(taxRateRecord),
  /** Ids of managed rates removed because their default no longer exists. */
  retired: z.array(objectId),
  /** Managed rates already equal to their default. */
  unchanged: z.number().int().min(0),
  /** Defaults left alone so a merchant's own rate is never overwritten. */
  skipped: z.array(
    z.object({
      code: z.string(),
      validFrom: isoDate,
      reason: z.enum(TAX_DEFAULT_SKIP_REASONS),
      rateId: objectId.nullable(),
    }),
  ),
});
export type ReplaceDefaultTaxRatesResult = z.infer<typeof replaceDefaultTaxRatesResult>;

/** A rate as a default would write it (no id yet). */
export const taxRateDraft = taxRateRecord.omit({ id: true, managed: true, createdAt: true, updatedAt: true });

/**
 * Answer of `PreviewReplaceDefaultTaxRates`: what replace-defaults would do now, written nowhere.
 * `update` pairs each managed rate with the figures it would get.
 */
export const replaceDefaultTaxRatesPreview = z.object({
  defaultsVersion: z.string(),
  create: z.array(taxRateDraft),
  update: z.array(z.object({ rate: taxRateRecord, to: taxRateDraft })),
  retire: z.array(taxRateRecord),
  unchanged: z.number().int().min(0),
  skipped: replaceDefaultTaxRatesResult.shape.skipped,
});
export type ReplaceDefaultTaxRatesPreview = z.infer<typeof replaceDefaultTaxRatesPreview>;

/** A rule as populate-defaults would write it (no id yet). */
export const taxRuleDraft = taxRuleRecord.omit({ id: true, managed: true, createdAt: true, updatedAt: true });

/** Answer of `PreviewPopulateDefaultTaxRules`: the default rules populate-defaults would create now. */
export const populateDefaultTaxRulesPreview = z.object({ create: z.array(taxRuleDraft) });
export type PopulateDefaultTaxRulesPreview = z.infer<typeof populateDefaultTaxRulesPreview>;

/** Answer of `PopulateDefaultTaxRules`: the default rules created (empty when none was missing). */
export const populateDefaultTaxRulesResult = z.object({ created: z.array(taxRuleRecord) });
export type PopulateDefaultTaxRulesResult = z.infer<typeof populateDefaultTaxRulesResult>;

// ---------------------------------------------------------------------------------------------
// Engine input and output

export const taxLineInput = z
  .object({
    name: z.string().max(200).default(''),
    quantity: z.number().int().min(1).max(1_000_000),
    /** Minor units; negative for discounts. Gross or net per the calculation's price mode. */
    unitPrice: z.number().int().min(-999_999_999_999).max(999_999_999_999),
    itemType: z.enum(TAX_ITEM_TYPES),
    /** `gross` or `net` for this line (invoice items' `amountType`); default: the calculation's price mode. */
    amountType: z.enum(['gross', 'net']).optional(),
    category: taxCategory.optional(),
    /** Manual override in percent for a taxable line (invoice `taxRate`, checkout item `vatRate`). */
    taxRate: taxPercent.optional(),
    /** Goods and shipping: where the goods go, when not the buyer's country. */
    shipToCountry: countryCode.optional(),
  })
  .strict();
export type TaxLineInput = z.infer<typeof taxLineInput>;

export const VAT_ID_STATUSES = [
  /** No VAT ID given. */
  'not_given',
  /** Given but the mode does not use it (`none`), or it was not checked. */
  'not_checked',
  /** Fails the member state's format or checksum. */
  'malformed',
  /** Well-formed; the mode (`format`) does not ask VIES. */
  'well_formed',
  /** VIES confirmed it. */
  'valid',
  /** VIES says it is not registered. */
  'invalid',
  /** VIES could not answer in time; the buyer is treated as a consumer. */
  'unverified',
] as const;
export type VatIdStatus = (typeof VAT_ID_STATUSES)[number];

/** Outcome of checking a buyer VAT ID, kept as evidence with every calculation. */
export const vatIdCheck = z.object({
  vatId: z.string().nullable(),
  status: z.enum(VAT_ID_STATUSES),
  /** `vies` (live answer), `cache` (an earlier VIES answer within its TTL), `format`, or null. */
  source: z.enum(['vies', 'cache', 'format']).nullable(),
  checkedAt: z.string().nullable(),
  /** VIES consultation number (request identifier), when VIES issued one. */
  consultationNumber: z.string().nullable(),
  companyName: z.string().nullable(),
  address: z.string().nullable(),
  /** Why VIES did not answer (`SERVICE_UNAVAILABLE`, `TIMEOUT`...), when it did not. */
  error: z.string().nullable(),
});
export type VatIdCheck = z.infer<typeof vatIdCheck>;

/** Body of the tax service's `ValidateVatId` (the Main Backend's `POST /vat/validate`). */
export const validateVatIdRequest = z.object({ vatId: z.string().max(100) }).strict();
export type ValidateVatIdRequest = z.infer<typeof validateVatIdRequest>;

/** Answer of `GetEuCountry`: whether a country is an EU member state, and its VIES VAT prefix. */
export const euCountry = z.object({
  /** ISO 3166-1 alpha-2 (`GR` for Greece), or `XI` for Northern Ireland. */
  countryCode: z.string(),
  euMember: z.boolean(),
  /** Inside the EU VAT area for goods: the member states, and Northern Ireland (`XI`). */
  euVatAreaForGoods: z.boolean(),
  /** Prefix of the country's VAT IDs in VIES (`EL` for Greece, `XI`), null outside the EU VAT area. */
  vatPrefix: z.string().nullable(),
  /** English short name. */
  name: z.string(),
});
export type EuCountry = z.infer<typeof euCountry>;

export const taxBuyerInput = z
  .object({
    country: countryCode,
    postcode: z.string().max(20).optional(),
    vatId: z.string().max(20).optional(),
  })
  .strict();
export type TaxBuyerInput = z.infer<typeof taxBuyerInput>;

/** Request of the tax service's `CalculateTax` (JSON). */
export const calculateTaxRequest = z
  .object({
    organizationId: objectId,
    mode: z.enum(['live', 'test']),
    currency: z.string().regex(/^[A-Z]{3}$/),
    /** Tax point (supply or invoice date); picks the rate version. Default: today (UTC). */
    date: isoDate.optional(),
    /** Overrides the organization's price mode (an amount without items is always gross). */
    priceMode: z.enum(['gross', 'net']).optional(),
    vatIdValidation: z.enum(VAT_ID_VALIDATION_MODES),
    buyer: taxBuyerInput,
    lines: z.array(taxLineInput).min(1).max(500),
    /**
     * A VAT ID check made earlier (e.g. stored with a transaction): used instead of checking again,
     * so a recalculation or rebuild is reproducible.
     */
    vatIdCheck: vatIdCheck.optional(),
  })
  .strict();
export type CalculateTaxRequest = z.infer<typeof calculateTaxRequest>;

/** Which rule of the engine decided a line (explainable line by line). */
export const TAX_DECISIONS = [
  'domestic',
  'domestic_b2b',
  'oss_destination',
  'below_threshold_origin',
  'general_service_origin',
  'reverse_charge',
  'intra_community_supply',
  'export',
  'manual_override',
  'seller_not_configured',
] as const;
export type TaxDecision = (typeof TAX_DECISIONS)[number];

export const taxLineResult = z.object({
  index: z.number().int(),
  name: z.string(),
  itemType: z.enum(TAX_ITEM_TYPES),
  category: z.string().nullable(),
  quantity: z.number().int(),
  unitPrice: z.number().int(),
  net: z.number().int(),
  tax: z.number().int(),
  gross: z.number().int(),
  taxRate: z.number(),
  taxRateCode: z.string(),
  /** Member state whose VAT applies (place of supply); null outside the EU. */
  taxCountry: z.string().nullable(),
  rateType: z.enum(RATE_TYPES).nullable(),
  decision: z.enum(TAX_DECISIONS),
  /** Human-readable explanation of the decision. */
  reason: z.string(),
  /** The rate record used and its version (code + validFrom), null for synthetic codes. */
  rateId: z.string().nullable(),
  rateVersion: z.string().nullable(),
  /** The tax rule that chose the rate type, when one did. */
  ruleId: z.string().nullable(),
});
export type TaxLineResult = z.infer<typeof taxLineResult>;

export const taxBreakdownEntry = z.object({
  taxRate: z.number(),
  taxRateCode: z.string(),
  taxableBase: z.number().int(),
  taxAmount: z.number().int(),
});
export type TaxBreakdownEntry = z.infer<typeof taxBreakdownEntry>;

/** One engine answer: the spec's preview fields plus the evidence behind them. */
export const taxCalculation = z.object({
  currency: z.string(),
  /** true: prices were gross (tax included). */
  taxIncluded: z.boolean(),
  totalNet: z.number().int(),
  totalTax: z.number().int(),
  totalGross: z.number().int(),
  taxBreakdown: z.array(taxBreakdownEntry),
  lines: z.array(taxLineResult),
  buyer: z.object({
    country: z.string(),
    postcode: z.string().nullable(),
    /** How the buyer was treated: `business` only with a VIES-confirmed VAT ID in `vies` mode. */
    type: z.enum(['consumer', 'business']),
    vatIdValidation: z.enum(VAT_ID_VALIDATION_MODES),
    vatIdCheck,
    /** One sentence for buyers and auditors on how the VAT ID was treated. */
    vatIdTreatment: z.string(),
  }),
  seller: z.object({
    homeCountry: z.string().nullable(),
    ossEnabled: z.boolean(),
    ossThresholdExceeded: z.boolean(),
  }),
  settings: z.object({
    priceMode: z.enum(['gross', 'net']),
    rounding: z.object({ level: z.enum(['per_line', 'per_document']), method: z.enum(['half_up', 'half_even']) }),
  }),
  /** Tax point used to pick rates. */
  date: isoDate,
  calculatedAt: z.string(),
  engineVersion: z.string(),
});
export type TaxCalculation = z.infer<typeof taxCalculation>;

// ---------------------------------------------------------------------------------------------
// Tax-record ledger (immutable entries derived from transaction and billing events)

/** What an entry was derived from. */
export const TAX_RECORD_SOURCE_KINDS = ['transaction', 'invoice', 'credit_note'] as const;
export type TaxRecordSourceKind = (typeof TAX_RECORD_SOURCE_KINDS)[number];

/** `sale` recognizes a supply; `reversal` cancels a sale entry whole; `credit` reduces it (credit note). */
export const TAX_RECORD_ENTRY_TYPES = ['sale', 'reversal', 'credit'] as const;
export type TaxRecordEntryType = (typeof TAX_RECORD_ENTRY_TYPES)[number];

/** `cash`: recognized when paid (transactions); `accrual`: recognized when invoiced (invoices, credit notes). */
export const RECOGNITION_MODES = ['accrual', 'cash'] as const;
export type RecognitionMode = (typeof RECOGNITION_MODES)[number];

/** One line of an entry; amounts in minor units, signed like the entry (negative for reversals and credits). */
export const taxRecordLine = z.object({
  taxCountry: z.string().nullable(),
  taxRateCode: z.string(),
  taxRate: z.number(),
  /** Kind of the rate applied (null for synthetic codes); absent in entries written before it was kept. */
  rateType: z.enum(RATE_TYPES).nullable().optional(),
  rateVersion: z.string().nullable(),
  decision: z.enum(TAX_DECISIONS),
  reason: z.string(),
  itemType: z.enum(TAX_ITEM_TYPES),
  net: z.number().int(),
  tax: z.number().int(),
});
export type TaxRecordLine = z.infer<typeof taxRecordLine>;

/**
 * An immutable ledger entry. Never updated in place: a correction is a new entry linked through
 * `correctsRecordId`. `id` is derived from (`sourceEventId`, `entryType`), so consuming one event
 * twice writes one entry.
 */
export const taxRecord = z.object({
  id: objectId,
  organizationId: objectId,
  mode: z.enum(['live', 'test']),
  siteId: objectId.nullable(),
  sourceKind: z.enum(TAX_RECORD_SOURCE_KINDS),
  /** Transaction, invoice or credit-note id. */
  sourceId: objectId,
  /** Id of the event the entry was derived from. */
  sourceEventId: z.string(),
  entryType: z.enum(TAX_RECORD_ENTRY_TYPES),
  recognitionMode: z.enum(RECOGNITION_MODES),
  /** Date the tax becomes due for this entry (payment, issue, refund or void date). */
  taxPointDate: isoDate,
  /**
   * The instant of the tax point when it is one (payment, refund or void time); null when the tax
   * point is a calendar day (issue date of an invoice or credit note). Reports place instants in
   * the period of the zone they are asked for, days as they are. Absent in older entries.
   */
  taxPointAt: z.string().nullable().optional(),
  currency: z.string(),
  totals: z.object({ net: z.number().int(), tax: z.number().int(), gross: z.number().int() }),
  lines: z.array(taxRecordLine),
  breakdown: z.array(taxBreakdownEntry),
  buyer: z.object({ country: z.string(), type: z.enum(['consumer', 'business']), vatIdCheck }),
  seller: z.object({ homeCountry: z.string().nullable(), ossEnabled: z.boolean(), ossThresholdExceeded: z.boolean() }),
  /**
   * The amounts in EUR: `{rate: 1, ...}` for EUR entries; null for other currencies until the ledger
   * has exchange rates (such entries are counted as unconverted where EUR totals are summed).
   */
  eur: z.object({ rate: z.number(), rateDate: isoDate, net: z.number().int(), tax: z.number().int() }).nullable(),
  /** The entry this one reverses or credits. */
  correctsRecordId: objectId.nullable(),
  /** The transaction this entry belongs to or was paid by. */
  linkedTransactionId: objectId.nullable(),
  /** The invoice this entry belongs to or corrects. */
  linkedInvoiceId: objectId.nullable(),
  /**
   * A transaction's entry whose transaction paid an invoice, or for which an invoice was issued
   * afterwards (automatic invoices; the link is added when the invoice's entry is recorded):
   * reports over both sources count the invoice's entries instead. Absent in older entries (read
   * as false).
   */
  invoicePayment: z.boolean().optional(),
  createdAt: z.string(),
});
export type TaxRecord = z.infer<typeof taxRecord>;

/** Body of `ListTaxRecords`; newest tax point first. */
export const taxRecordListQuery = z
  .object({
    page: z.number().int().min(1).max(1_000_000).default(1),
    limit: z.number().int().min(1).max(100).default(20),
    /** Tax point from (inclusive). */
    startDate: isoDate.optional(),
    /** Tax point to (inclusive). */
    endDate: isoDate.optional(),
    sourceKind: z.enum(TAX_RECORD_SOURCE_KINDS).optional(),
    recognitionMode: z.enum(RECOGNITION_MODES).optional(),
    entryType: z.enum(TAX_RECORD_ENTRY_TYPES).optional(),
    sourceId: objectId.optional(),
    linkedTransactionId: objectId.optional(),
    linkedInvoiceId: objectId.optional(),
  })
  .strict();
export type TaxRecordListQuery = z.infer<typeof taxRecordListQuery>;

export const taxRecordPage = z.object({
  data: z.array(taxRecord),
  total: z.number().int(),
  page: z.number().int(),
  limit: z.number().int(),
});
export type TaxRecordPage = z.infer<typeof taxRecordPage>;

export const TAX_RECORD_REBUILD_STATUSES = ['queued', 'running', 'completed', 'failed'] as const;
export type TaxRecordRebuildStatus = (typeof TAX_RECORD_REBUILD_STATUSES)[number];

/** A rebuild of one organization's ledger (one data mode) from its stored source events. */
export const taxRecordRebuildJob = z.object({
  id: objectId,
  organizationId: objectId,
  mode: z.enum(['live', 'test']),
  status: z.enum(TAX_RECORD_REBUILD_STATUSES),
  progress: z.object({
    /** Source events of the organization when the job started. */
    sourceEvents: z.number().int(),
    processed: z.number().int(),
    /** Entries that were missing and are now written. */
    created: z.number().int(),
    /** Entries found identical to their re-derivation. */
    existing: z.number().int(),
    /** Entries that differ from their re-derivation (kept as stored, logged). */
    mismatched: z.number().int(),
    /** Source events whose derivation failed. */
    failed: z.number().int(),
    /** Source events still waiting (for the engine, or for the entry they correct). */
    pending: z.number().int(),
  }),
  /** Times a worker started the job (more than 1 after an interrupted run was resumed). */
  attempts: z.number().int(),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  error: z.string().nullable(),
});
export type TaxRecordRebuildJob = z.infer<typeof taxRecordRebuildJob>;
