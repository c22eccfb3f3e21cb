import { z } from 'zod';
import { objectId } from './object-id';

/**
 * Dashboard (checkout `GetDashboard` RPC, Admin `GET /dashboard`): figures of the transactions
 * created in a period, in their current state, from the incrementally kept aggregates. Amounts are
 * integers in minor units of their currency and are never converted: money figures come per
 * currency.
 */

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD');
const currencyCode = z.string().regex(/^[A-Z]{3}$/, 'must be a three-letter currency code');

export const DASHBOARD_PERIODS = [
  'today',
  'yesterday',
  'last_7_days',
  'last_30_days',
  'this_month',
  'last_month',
  'this_quarter',
  'this_year',
] as const;
export type DashboardPeriodPreset = (typeof DASHBOARD_PERIODS)[number];

/** Longest period (days): three years and a leap day. */
export const DASHBOARD_MAX_DAYS = 3 * 366;

/** `GET /dashboard` query. */
export const dashboardQuery = z
  .object({
    startDate: isoDate
      .optional()
      .describe('first day of the period (local day in `timezone`), with endDate; not with period'),
    endDate: isoDate.optional().describe('last day of the period, inclusive'),
    period: z
      .enum(DASHBOARD_PERIODS)
      .optional()
      .describe('a preset period ending today in `timezone`; default last_30_days when no dates are given'),
    timezone: z.string().min(1).max(64).default('UTC').describe('IANA zone the days are counted in'),
    currency: currencyCode.optional().describe('only transactions in this currency'),
    siteId: objectId.optional().describe('only transactions of this site'),
    recentLimit: z.coerce.number().int().min(0).max(100).default(10).describe('how many recent transactions (0-100)'),
    topLimit: z.coerce.number().int().min(1).max(50).default(5).describe('how many top providers (1-50)'),
  })
  .strict();
export type DashboardQuery = z.infer<typeof dashboardQuery>;

/** Transactions per status (integer status codes by name). */
export const dashboardStatusCounts = z.object({
  total: z.number().int(),
  canceled: z.number().int().describe('status -2'),
  initiated: z.number().int().describe('status -1'),
  pending: z.number().int().describe('status 0'),
  completed: z.number().int().describe('status 1'),
  failed: z.number().int().describe('status 2'),
  refunded: z.number().int().describe('status 3'),
  disputed: z.number().int().describe('status 4'),
});
export type DashboardStatusCounts = z.infer<typeof dashboardStatusCounts>;

const failureRatio = z
  .number()
  .nullable()
  .describe(
    'failed / (failed + completed payments), 0-1; null when neither happened. Canceled and pending transactions are not counted',
  );

export const dashboardProviderVolume = z.object({
  providerId: objectId.nullable().describe('null for manual transactions'),
  providerType: z.string().describe('provider_a..provider_d, or manual'),
  grossVolume: z.number().int(),
  completedPayments: z.number().int(),
  transactionCount: z.number().int(),
  failedCount: z.number().int(),
});

export const dashboardProviderCount = z.object({
  providerId: objectId.nullable(),
  providerType: z.string(),
  transactionCount: z.number().int(),
  completedPayments: z.number().int(),
  failedCount: z.number().int(),
  failureRatio,
});

export const dashboardCurrency = z.object({
  currency: currencyCode,
  grossVolume: z.number().int().describe('sum of the amounts of completed payments (transactions in status 1, 3 or 4)'),
  refundedAmount: z
    .number()
    .int()
    .describe('refunds of those payments (the whole amount of a transaction marked refunded)'),
  disputeLostAmount: z.number().int().describe('disputes lost or accepted on those payments'),
  netRevenue: z.number().int().describe('grossVolume - refundedAmount - disputeLostAmount'),
  completedPayments: z.number().int().describe('number of completed payments (status 1, 3 or 4)'),
  transactionCounts: dashboardStatusCounts,
  failureRatio,
  topProvidersByVolume: z
    .array(dashboardProviderVolume)
    .describe('providers by gross volume in this currency, largest first'),
});
export type DashboardCurrency = z.infer<typeof dashboardCurrency>;

export const dashboardRecentTransaction = z.object({
  id: objectId,
  siteId: objectId,
  status: z.number().int(),
  amount: z.number().int(),
  currency: currencyCode,
  providerId: objectId.nullable(),
  providerType: z.string().nullable(),
  externalReference: z.string().nullable(),
  createdAt: z.string(),
});

/** One currency's figures in one point of the time series. */
export const dashboardSeriesCurrency = z.object({
  currency: currencyCode,
  grossVolume: z.number().int().describe('amounts of the completed payments created in this interval'),
  netRevenue: z.number().int().describe('grossVolume - refunds - lost disputes of those payments'),
  completedPayments: z.number().int(),
  transactionCount: z.number().int().describe('transactions created in this interval, any status'),
});

export const DASHBOARD_SERIES_GRANULARITIES = ['hour', 'day', 'month'] as const;

/** The period as a time series of consecutive intervals (local hours, days or months in `timezone`). */
export const dashboardSeries = z.object({
  granularity: z
    .enum(DASHBOARD_SERIES_GRANULARITIES)
    .describe('hour for periods of up to 2 days, day up to 92 days, month beyond (the first and last may be partial)'),
  points: z
    .array(
      z.object({
        start: z.string().describe('first instant of the interval (UTC)'),
        end: z.string().describe('end of the interval, exclusive (UTC)'),
        label: z
          .string()
          .describe('the interval in `timezone`: YYYY-MM-DDTHH:mm (hour), YYYY-MM-DD (day), YYYY-MM (month)'),
        currencies: z.array(dashboardSeriesCurrency).describe('currencies with transactions in this interval'),
      }),
    )
    .describe('oldest first; every interval of the period, empty ones included'),
});
export type DashboardSeries = z.infer<typeof dashboardSeries>;

export const dashboardView = z.object({
  period: z.object({
    preset: z.enum(DASHBOARD_PERIODS).nullable(),
    startDate: isoDate,
    endDate: isoDate,
    timezone: z.string(),
    startAt: z.string().describe('first instant of the period (UTC)'),
    endAt: z.string().describe('end of the period, exclusive (UTC)'),
  }),
  mode: z.enum(['live', 'test']),
  siteId: objectId.nullable(),
  currency: currencyCode.nullable(),
  transactionCounts: dashboardStatusCounts.describe('all currencies (or the one asked for)'),
  failureRatio,
  currencies: z
    .array(dashboardCurrency)
    .describe('one entry per currency with transactions in the period, by currency code'),
  topProvidersByCount: z
    .array(dashboardProviderCount)
    .describe('providers by completed payments, then transactions (all currencies)'),
  recentTransactions: z.array(dashboardRecentTransaction).describe('newest first'),
  series: dashboardSeries.describe('gross volume, net revenue and counts over the period, per currency'),
});
export type DashboardView = z.infer<typeof dashboardView>;
