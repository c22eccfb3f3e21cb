import { z } from 'zod';
import { invoiceCreate } from './billing-invoices';
import { objectId } from './object-id';
import { listPage } from './list-page';

/**
 * Recurring invoice schedules (recurring service): the Admin API's inputs and records, the
 * processor's answers and the buyer portal's subscription views. The recurring service validates
 * with these and gRPC carries them as JSON; the gateways document and check responses with them.
 * Dates are calendar days `YYYY-MM-DD` in the schedule's time zone; money is in minor units.
 */

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD');

export const RECURRING_STATUSES = ['active', 'paused', 'cancel_requested', 'cancelled', 'completed'] as const;
export const RECURRING_INTERVALS = ['day', 'week', 'month', 'year'] as const;

/** Longest stored cancellation reason; longer reasons are cut (after trimming), not refused. */
export const CANCELLATION_REASON_MAX = 500;

/**
 * The invoice each cycle creates: exactly the draft payload of `POST /invoices` (siteId, clientId,
 * currency, items, paymentTermsDays or dueDate rule, notes) without the per-invoice dates, which
 * each cycle sets (issue date = the cycle's date, service period = the cycle).
 */
export const recurringInvoiceTemplate = invoiceCreate.superRefine((t, ctx) => {
  for (const f of ['issueDate', 'dueDate', 'servicePeriod'] as const) {
    if (t[f] !== undefined)
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: [f],
        message: `${f} is set by each cycle; give paymentTermsDays instead`,
      });
  }
});
export type RecurringInvoiceTemplate = z.infer<typeof recurringInvoiceTemplate>;

const scheduleFields = {
  /** Label shown to the buyer in the portal; default: the first line's description. */
  name: z.string().trim().min(1).max(200),
  /** Date of the first cycle. */
  startDate: isoDate,
  interval: z.enum(RECURRING_INTERVALS),
  /** Every `intervalCount` intervals (default 1). */
  intervalCount: z.number().int().min(1).max(366),
  /** IANA time zone whose calendar days the dates are; default the organization's invoicing time zone, else UTC. */
  timezone: z.string().min(1).max(64),
  template: recurringInvoiceTemplate,
  autoFinalizeInvoices: z.boolean(),
  /** Valid only with `autoFinalizeInvoices`. */
  autoSendInvoices: z.boolean(),
};

const autoSendRule = <T extends { autoFinalizeInvoices?: boolean; autoSendInvoices?: boolean }>(v: T) =>
  !(v.autoSendInvoices === true && v.autoFinalizeInvoices !== true);
const autoSendMessage = { message: 'autoSendInvoices requires autoFinalizeInvoices', path: ['autoSendInvoices'] };

/** Body of `POST /invoices/recurring`. */
export const recurringScheduleCreate = z
  .object({
    ...scheduleFields,
    name: scheduleFields.name.optional(),
    intervalCount: scheduleFields.intervalCount.default(1),
    timezone: scheduleFields.timezone.optional(),
    autoFinalizeInvoices: z.boolean().default(false),
    autoSendInvoices: z.boolean().default(false),
  })
  .strict()
  .refine(autoSendRule, autoSendMessage);
export type RecurringScheduleCreate = z.infer<typeof recurringScheduleCreate>;

/**
 * Body of `PUT /invoices/recurring/:id`: the fields to change (at least one). The result must keep
 * `autoSendInvoices` only with `autoFinalizeInvoices`.
 */
export const recurringScheduleUpdate = z
  .object(scheduleFields)
  .partial()
  .strict()
  .refine((v) => Object.keys(v).length > 0, 'give at least one field to change');
export type RecurringScheduleUpdate = z.infer<typeof recurringScheduleUpdate>;

/** Body of `POST /invoices/recurring/:id/cancel` (and the portal's cancel): optional reason. */
export const recurringCancel = z
  .object({ reason: z.string().max(10_000).optional() })
  .strict()
  .nullish()
  .transform((v) => {
    const reason = v?.reason?.trim().slice(0, CANCELLATION_REASON_MAX);
    return { reason: reason ? reason : null };
  });
export type RecurringCancel = z.output<typeof recurringCancel>;

/** Query of `GET /invoices/recurring`. */
export const recurringListQuery = z
  .object({
    status: z.enum(RECURRING_STATUSES).optional(),
    clientId: objectId.optional(),
    page: z.number().int().min(1).default(1),
    limit: z.number().int().min(1).max(100).default(20),
  })
  .strict();
export type RecurringListQuery = z.output<typeof recurringListQuery>;

export const recurringScheduleRecord = z.object({
  id: z.string(),
  testMode: z.boolean(),
  name: z.string(),
  status: z.enum(RECURRING_STATUSES),
  startDate: isoDate,
  interval: z.enum(RECURRING_INTERVALS),
  intervalCount: z.number().int(),
  /** `every 1 month`. */
  cadence: z.string(),
  timezone: z.string(),
  /** Date of the next cycle to process; null when none will run (cancelled, completed). */
  nextRunDate: isoDate.nullable(),
  /** Index of that cycle (0 = the start date). */
  nextCycle: z.number().int(),
  /** Invoices generated so far. */
  invoicesGenerated: z.number().int(),
  lastInvoiceId: z.string().nullable(),
  template: z.object({
    siteId: z.string(),
    clientId: z.string(),
    currency: z.string(),
    items: z.array(z.record(z.unknown())),
    paymentTermsDays: z.number().int().nullable(),
    notes: z.string().nullable(),
  }),
  autoFinalizeInvoices: z.boolean(),
  autoSendInvoices: z.boolean(),
  /** Cancellation: the first cycle that is not billed, its date, when and by whom it was asked, why. */
  effectiveFromCycle: z.number().int().nullable(),
  effectiveAt: isoDate.nullable(),
  cancellationRequestedAt: z.string().nullable(),
  cancelledBy: z.string().nullable(),
  cancellationReason: z.string().nullable(),
  cancelledAt: z.string().nullable(),
  pausedAt: z.string().nullable(),
  createdBy: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type RecurringScheduleRecord = z.infer<typeof recurringScheduleRecord>;

export const recurringSchedulePage = listPage(recurringScheduleRecord);

/** Answer of `POST /invoices/recurring/:id/generate`. */
export const recurringGenerateResult = z.object({
  schedule: recurringScheduleRecord,
  /** The cycle generated and its invoice (the same invoice when that cycle was already generated). */
  cycle: z.number().int(),
  scheduledDate: isoDate,
  invoiceId: z.string(),
  invoiceStatus: z.string(),
  /** False when the cycle had already been generated (no second invoice). */
  created: z.boolean(),
});

/** One projected charge. */
export const upcomingCharge = z.object({
  /** `<scheduleId>-<cycle>`. */
  id: z.string(),
  cycle: z.number().int(),
  scheduledDate: isoDate,
  /** The cycle's date plus the template's payment terms (the date itself when none). */
  dueDate: isoDate,
  currency: z.string(),
  /** Net amount of the template's lines. */
  baseAmount: z.number().int(),
  /** Usage-based amount (always 0: schedules bill fixed lines). */
  usageAmount: z.number().int(),
  /** Tax the engine computes for the template on that date. */
  taxEstimate: z.number().int(),
  estimatedTotal: z.number().int(),
  proformaAvailable: z.boolean(),
  proformaPreviewId: z.string(),
  proformaPreviewLabel: z.string(),
});

/** Upcoming charges one request projects by default. */
export const DEFAULT_UPCOMING_CHARGES = 3;
/**
 * Most upcoming charges one request projects (the spec names no bound): a year of monthly
 * charges; each charge costs a tax preview in billing, and the portal route is public.
 */
export const MAX_UPCOMING_CHARGES = 12;

/**
 * Query of `GET /invoices/recurring/:id/upcoming` (Admin API), of the portal's
 * `GET /portal/subscriptions/:id/upcoming` and of the recurring service's RPCs behind both: one
 * schema, so what a gateway accepts the service accepts too. Coerces, so it reads a query string
 * as well as the JSON the gateways forward.
 */
export const upcomingQuery = z
  .object({
    count: z.coerce
      .number()
      .int('count must be an integer')
      .min(1, `count must be from 1 to ${MAX_UPCOMING_CHARGES}`)
      .max(MAX_UPCOMING_CHARGES, `count must be from 1 to ${MAX_UPCOMING_CHARGES}`)
      .default(DEFAULT_UPCOMING_CHARGES)
      .describe(`charges to project, 1 to ${MAX_UPCOMING_CHARGES} (default ${DEFAULT_UPCOMING_CHARGES})`),
  })
  .strict();

/** What a subscription shows of itself wherever it is listed or opened (its upcoming charges, the portal list). */
const subscriptionSummary = {
  name: z.string(),
  status: z.enum(RECURRING_STATUSES),
  cadence: z.string(),
  currency: z.string(),
  /** Start of the next billed cycle's day in the schedule's zone (ISO timestamp); null when none. */
  nextChargeDate: z.string().nullable(),
  /** When a scheduled cancellation takes effect (ISO timestamp); null when none. */
  effectiveAt: z.string().nullable(),
};

/** Answer of `GET /invoices/recurring/:id/upcoming` and the portal's upcoming-charges response. */
export const upcomingCharges = z.object({
  subscriptionId: z.string(),
  ...subscriptionSummary,
  cancellationReason: z.string().nullable(),
  cancellationRequestedAt: z.string().nullable(),
  upcoming: z.array(upcomingCharge),
});
export type UpcomingCharges = z.infer<typeof upcomingCharges>;

/** Answer of `POST /system/recurring/process`. */
export const recurringProcessResult = z.object({
  /** Due cycles handled by this run. */
  processed: z.number().int(),
  /** Invoices generated (or found already generated by an earlier, interrupted run) and recorded. */
  completed: z.number().int(),
  failed: z.number().int(),
  /** Due cycles another processor holds, or schedules that were no longer due. */
  skipped: z.number().int(),
  cancellationsFinalized: z.number().int(),
});
export type RecurringProcessResult = z.infer<typeof recurringProcessResult>;

/** Body of `POST /system/recurring/process` (optional). */
export const recurringProcessBody = z
  .object({
    /** At most this many due schedules in this run (default 500). */
    limit: z.number().int().min(1).max(5000).optional(),
    /** Test only (refused unless the service runs with RECURRING_TEST_HOOKS=true): the run's "now". */
    now: z.string().datetime().optional(),
    /** Test only (same condition): the run stops for good after claiming, or after creating the invoice, until the process is killed. */
    holdAfter: z.enum(['claim', 'invoice']).optional(),
  })
  .strict();
export const recurringProcessRequest = recurringProcessBody.nullish().transform((v) => v ?? {});
export type RecurringProcessBody = z.output<typeof recurringProcessRequest>;

export const recurringRunRecord = z.object({
  id: z.string(),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  processed: z.number().int(),
  completed: z.number().int(),
  failed: z.number().int(),
  skipped: z.number().int(),
  cancellationsFinalized: z.number().int(),
});

/** Answer of `GET /system/recurring/status`. */
export const recurringProcessorStatus = z.object({
  now: z.string(),
  /** Schedules with a due cycle now (active) and due cancellations (cancel_requested). */
  due: z.object({ invoices: z.number().int(), cancellations: z.number().int() }),
  /** Cycles claimed and not finished (a run in progress, or a crashed run's claim waiting for its lease to end). */
  openClaims: z.number().int(),
  schedules: z.record(z.number().int()),
  lastRuns: z.array(recurringRunRecord),
});

/** Portal: one subscription of the buyer. */
export const portalSubscription = z.object({
  id: z.string(),
  ...subscriptionSummary,
  estimatedNextAmount: z.number().int(),
  upcomingChargesCount: z.number().int(),
});

export const portalSubscriptionPage = z.object({
  subscriptions: z.array(portalSubscription),
  total: z.number().int(),
  page: z.number().int(),
  limit: z.number().int(),
});

export const portalCancelResult = z.object({
  subscriptionId: z.string(),
  status: z.enum(RECURRING_STATUSES),
  alreadyCancelled: z.boolean(),
  effectiveAt: z.string().nullable(),
  cancellationReason: z.string().nullable(),
  cancellationRequestedAt: z.string().nullable(),
  message: z.string(),
});
