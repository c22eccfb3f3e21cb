import { z } from 'zod';

/**
 * Exports for the merchant's accountant and tax auditor (billing service, Admin API
 * `/accounting/*`): the DATEV "Buchungsstapel" with its debtor master data, and the GDPdU
 * (GoBD Z3) tax-audit package. Format notes: docs/datev-gdpdu.md; decisions: docs/adr/0072.
 */

const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
  .refine((d) => {
    const t = new Date(`${d}T00:00:00Z`);
    return !Number.isNaN(t.getTime()) && t.toISOString().slice(0, 10) === d;
  }, 'must be a date of the calendar');

/** The charts of accounts DATEV ships defaults for. */
export const DATEV_CHARTS = ['SKR03', 'SKR04'] as const;
export type DatevChart = (typeof DATEV_CHARTS)[number];

/** Tax keys are digits only (DATEV's one- to four-digit "BU-Schlüssel"). */
const buKey = z.string().regex(/^\d{1,4}$/, 'must be a DATEV tax key of 1 to 4 digits');
const account = z.number().int().min(1).max(999_999_999);

/** A revenue account and the tax key posted with it (null: none, e.g. on an automatic account). */
export const datevRevenueAccount = z.object({ account, buKey: buKey.nullable() }).strict();
export type DatevRevenueAccount = z.infer<typeof datevRevenueAccount>;

/** Percent rates as map keys: `19`, `7`, `5.5`. */
const rateKey = z.string().regex(/^\d{1,2}(\.\d{1,2})?$/, 'must be a tax rate in percent such as 19 or 5.5');
const countryKey = z.string().regex(/^[A-Z]{2}$/, 'must be an upper-case ISO 3166-1 alpha-2 code');
const objectIdKey = z.string().regex(/^[0-9a-f]{24}$/, 'must be a 24-hex client identifier');

export const DATEV_DEBTOR_MODES = ['per_client', 'collective'] as const;

/**
 * The DATEV part of the invoicing settings, as `PUT /organizations/settings/invoicing` takes it
 * under `datev`. Groups merge field by field; the maps (`domestic`, `oss`, `clients`,
 * `byProvider`) are replaced whole. Accounts not named fall back to the chart's defaults.
 */
export const datevSettingsPatch = z
  .object({
    /** Beraternummer of the tax adviser (4 to 7 digits). */
    consultantNumber: z.number().int().min(1001).max(9_999_999).nullable(),
    /** Mandantennummer of the merchant at the adviser (1 to 5 digits). */
    clientNumber: z.number().int().min(1).max(99_999).nullable(),
    chart: z.enum(DATEV_CHARTS),
    /** First month of the fiscal year (Wirtschaftsjahr); also bounds GDPdU fiscal years. */
    fiscalYearStartMonth: z.number().int().min(1).max(12),
    /** G/L account length (Sachkontenlänge): debtor accounts have one digit more. */
    accountLength: z.number().int().min(4).max(8),
    /** Marks exported postings as locked (Festschreibung) in DATEV. */
    lockPostings: z.boolean(),
    revenue: z
      .object({
        /** Domestic sales by rate in percent (`{"19": {...}, "7": {...}}`). */
        domestic: z.record(rateKey, datevRevenueAccount),
        /** Domestic sales at any other rate (0 %, historic rates). */
        domesticOther: datevRevenueAccount,
        /** Services to EU businesses, the buyer owes the tax (reverse charge). */
        reverseCharge: datevRevenueAccount,
        /** Tax-free intra-Community supplies of goods. */
        intraCommunitySupply: datevRevenueAccount,
        /** Tax-free exports outside the EU. */
        export: datevRevenueAccount,
        /** One-Stop-Shop sales by member state of consumption (`{"FR": {...}}`). */
        oss: z.record(countryKey, datevRevenueAccount),
        /** OSS sales of a member state not in `oss`. */
        ossDefault: datevRevenueAccount,
      })
      .strict()
      .partial(),
    debtors: z
      .object({
        /** `per_client`: each client gets its own debtor account; `collective`: one for all. */
        mode: z.enum(DATEV_DEBTOR_MODES),
        collectiveAccount: account,
        /** First account handed out to a client without one (`per_client`). */
        firstAccount: account,
        /** Debtor accounts chosen by the merchant per client id (at most 1000). */
        clients: z
          .record(objectIdKey, account)
          .refine((m) => Object.keys(m).length <= 1000, 'at most 1000 client accounts'),
      })
      .strict()
      .partial(),
    clearing: z
      .object({
        /** Clearing account of payments whose provider has none below (Geldtransit). */
        default: account,
        /** Clearing account per provider type (`provider_a`, ...). */
        byProvider: z.record(z.string().regex(/^[a-z][a-z0-9_]{0,30}$/), account),
      })
      .strict()
      .partial(),
  })
  .strict()
  .partial();
export type DatevSettingsPatch = z.infer<typeof datevSettingsPatch>;

/** The DATEV settings in effect: what was saved over the chart's defaults. */
export const datevSettingsView = z.object({
  consultantNumber: z.number().int().nullable(),
  clientNumber: z.number().int().nullable(),
  chart: z.enum(DATEV_CHARTS),
  fiscalYearStartMonth: z.number().int(),
  accountLength: z.number().int(),
  lockPostings: z.boolean(),
  revenue: z.object({
    domestic: z.record(datevRevenueAccount),
    domesticOther: datevRevenueAccount,
    reverseCharge: datevRevenueAccount,
    intraCommunitySupply: datevRevenueAccount,
    export: datevRevenueAccount,
    oss: z.record(datevRevenueAccount),
    ossDefault: datevRevenueAccount,
  }),
  debtors: z.object({
    mode: z.enum(DATEV_DEBTOR_MODES),
    collectiveAccount: z.number().int(),
    firstAccount: z.number().int(),
    clients: z.record(z.number().int()),
  }),
  clearing: z.object({ default: z.number().int(), byProvider: z.record(z.number().int()) }),
});
export type DatevSettingsView = z.infer<typeof datevSettingsView>;

/** Which postings of the range a DATEV export takes. */
export const DATEV_SELECTIONS = ['all', 'not_exported'] as const;

/**
 * Body of `POST /accounting/datev/exports`. The range lies in one fiscal year (a DATEV batch
 * never spans two): `to` defaults to today, `from` to the first day of `to`'s fiscal year.
 */
export const datevExportRequest = z
  .object({
    from: isoDate.optional(),
    to: isoDate.optional(),
    /** `not_exported`: only postings no earlier completed export delivered (default `all`). */
    select: z.enum(DATEV_SELECTIONS).default('all'),
  })
  .strict();
export type DatevExportRequest = z.output<typeof datevExportRequest>;

export const DATEV_EXPORT_STATUSES = ['running', 'completed', 'failed'] as const;

/** Postings of an export by what they book. */
export const datevPostingCounts = z.object({
  invoices: z.number().int(),
  creditNotes: z.number().int(),
  payments: z.number().int(),
  refunds: z.number().int(),
  chargebacks: z.number().int(),
});
export type DatevPostingCounts = z.infer<typeof datevPostingCounts>;

/** One DATEV export as recorded. */
export const datevExportRecord = z.object({
  id: z.string(),
  from: isoDate,
  to: isoDate,
  select: z.enum(DATEV_SELECTIONS),
  status: z.enum(DATEV_EXPORT_STATUSES),
  /** Posting rows written (a document with several tax rates gives several rows). */
  postings: z.number().int(),
  /** Documents and payments booked, by kind. */
  counts: datevPostingCounts,
  /** Debtor rows of the master data file. */
  debtors: z.number().int(),
  /** Buchungsstapel files in the zip (one per 99,999 postings, at least one). */
  files: z.number().int(),
  /** SHA-256 (hex) of the zip as delivered; null until completed. */
  digest: z.string().nullable(),
  bytes: z.number().int(),
  actor: z.string().nullable(),
  createdAt: z.string(),
  completedAt: z.string().nullable(),
  /**
   * How far the export has read: documents read (`done`) of those the range held when it started
   * (`total`: invoices and credit notes issued in the range, plus the organization's invoices the
   * payments pass reads). `done` equals `total` once completed.
   */
  progress: z.object({ done: z.number().int(), total: z.number().int() }),
  /** Whether the zip was kept and can be downloaded again (exports started as a job, once completed). */
  file: z.boolean(),
});
export type DatevExportRecord = z.infer<typeof datevExportRecord>;

export const datevExportListQuery = z
  .object({
    page: z.number().int().min(1).default(1),
    limit: z.number().int().min(1).max(100).default(20),
  })
  .strict();
export const datevExportPage = z.object({
  items: z.array(datevExportRecord),
  total: z.number().int(),
  page: z.number().int(),
  limit: z.number().int(),
});

/** Which recorded DATEV export (`GET /accounting/datev/exports/{id}`, its file). */
export const datevExportId = z.object({ id: z.string().min(1).max(64) }).strict();

/** Body of `POST /accounting/gdpdu/exports`: the fiscal year starting in `fiscalYear`. */
export const gdpduExportRequest = z
  .object({
    fiscalYear: z.number().int().min(2000).max(2100),
  })
  .strict();
export type GdpduExportRequest = z.infer<typeof gdpduExportRequest>;
