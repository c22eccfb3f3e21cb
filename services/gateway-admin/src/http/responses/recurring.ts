import {
  recurringGenerateResult,
  recurringProcessorStatus,
  recurringProcessResult,
  recurringSchedulePage,
  recurringScheduleRecord,
  upcomingCharges,
} from '@paymesh/contracts';

/**
 * Recurring schedules of the Admin API: the recurring contract's schemas, so the documented shape
 * is the one the service answers with (checked on every response). `nextRunDate` only.
 */
export const recurringScheduleResponse = recurringScheduleRecord;
export const recurringSchedulePageResponse = recurringSchedulePage;
export const recurringGenerateResponse = recurringGenerateResult;
export const recurringUpcomingResponse = upcomingCharges;
export const recurringProcessResponse = recurringProcessResult;
export const recurringStatusResponse = recurringProcessorStatus;
