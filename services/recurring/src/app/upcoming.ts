import { isObjectId, ConflictError, NotFoundError } from '@paymesh/core';
import { DEFAULT_UPCOMING_CHARGES, type RecurringCancel, type UpcomingCharges } from '@paymesh/contracts';
import { addDays, cadenceOf, dayStartsAt } from '../domain/schedule-dates';
import { PORTAL_VISIBLE } from '../domain/schedule-state';
import type { OrgKey } from './billing-port';
import type { RecurringDeps } from './deps';
import { cycleInvoiceBody, generateCycle, recordClaimError } from './cycle';
import { dateOfCycle, effectiveDate, intervalOf, scheduleView, type ScheduleDoc } from './schedule-doc';
import { cancelSchedule, invoiceBody, loadSchedule, schedules } from './schedules';

/** The cycles still to bill, at most `count`: none once cancelled, completed or a cancellation is scheduled. */
function upcomingCycles(s: ScheduleDoc, count: number): number[] {
  if (s.nextRunDate === null || (s.status !== 'active' && s.status !== 'paused')) return [];
  return Array.from({ length: count }, (_, i) => s.nextCycle + i);
}

const ts = (s: ScheduleDoc, date: string | null) => (date ? dayStartsAt(date, s.timezone) : null);

/** The id of an upcoming charge: the schedule and its cycle. */
const chargeId = (s: ScheduleDoc, cycle: number) => `${s.id}-${cycle}`;
/** The number printed on the pro forma preview of a charge (never an invoice number). */
const previewNumber = (s: ScheduleDoc, cycle: number) => `PROFORMA-${s.id.slice(-8).toUpperCase()}-${cycle}`;

/** The upcoming charges; with `previews`, the first one offers its pro forma PDF (portal only). */
async function charges(deps: RecurringDeps, s: ScheduleDoc, count: number, previews = false) {
  const key: OrgKey = { organizationId: s.organizationId, mode: s.mode };
  return Promise.all(
    upcomingCycles(s, count).map(async (cycle, index) => {
      const scheduledDate = dateOfCycle(s, cycle);
      const totals = await deps.billing.previewTax(key, { ...invoiceBody(s.template), issueDate: scheduledDate });
      const preview = previews && index === 0;
      return {
        id: chargeId(s, cycle),
        cycle,
        scheduledDate,
        dueDate: addDays(scheduledDate, s.template.paymentTermsDays ?? 0),
        currency: s.template.currency,
        baseAmount: totals.net,
        usageAmount: 0,
        taxEstimate: totals.tax,
        estimatedTotal: totals.gross,
        proformaAvailable: preview,
        proformaPreviewId: preview ? chargeId(s, cycle) : '',
        proformaPreviewLabel: preview ? `Pro forma ${previewNumber(s, cycle)} for the charge of ${scheduledDate}` : '',
      };
    }),
  );
}

function nextChargeDate(s: ScheduleDoc): string | null {
  return s.status === 'active' || s.status === 'paused' ? ts(s, s.nextRunDate) : null;
}

function effectiveAt(s: ScheduleDoc): string | null {
  return s.status === 'cancel_requested' || s.status === 'cancelled' ? ts(s, effectiveDate(s)) : null;
}

/** What a subscription shows of itself wherever it is listed or opened: name, status, cadence, when next. */
function summaryOf(s: ScheduleDoc) {
  return {
    name: s.name,
    status: s.status,
    cadence: cadenceOf(intervalOf(s)),
    currency: s.template.currency,
    nextChargeDate: nextChargeDate(s),
    effectiveAt: effectiveAt(s),
  };
}

/** The upcoming-charges response (Admin and portal; `previews` only for the portal, which serves them). */
export async function upcomingOf(
  deps: RecurringDeps,
  s: ScheduleDoc,
  count: number,
  previews = false,
): Promise<UpcomingCharges> {
  return {
    subscriptionId: s.id,
    ...summaryOf(s),
    cancellationReason: s.cancellationReason,
    cancellationRequestedAt: s.cancellationRequestedAt,
    upcoming: await charges(deps, s, count, previews),
  };
}

/** `POST /invoices/recurring/:id/generate`: the schedule's next cycle now, exactly once. */
export async function generateNow(deps: RecurringDeps, key: OrgKey, id: string, actor: string) {
  const s = await loadSchedule(deps, key, id);
  if (s.status !== 'active' || s.nextRunDate === null) {
    throw new ConflictError(`recurring schedule ${id} is ${s.status}: only active schedules generate invoices`);
  }
  const owner = `manual:${actor}:${Date.now()}`;
  let out;
  try {
    out = await generateCycle(deps, s, s.nextCycle, owner);
  } catch (err) {
    // Release this request's claim so a retry (or the processor) can generate the cycle at once.
    await recordClaimError(deps, s, s.nextCycle, owner, err instanceof Error ? err.message : String(err));
    throw err;
  }
  if (out.kind !== 'generated')
    throw new ConflictError(
      `cycle ${s.nextCycle} of recurring schedule ${id} is being generated or was changed by another request; try again`,
    );
  return {
    schedule: scheduleView(out.schedule),
    cycle: out.cycle,
    scheduledDate: out.cycleDate,
    invoiceId: out.invoice.id,
    invoiceStatus: out.invoice.status,
    created: out.created,
  };
}

// --- buyer portal ---------------------------------------------------------------------------

export interface PortalKey extends OrgKey {
  email: string;
}

const portalFilter = (k: PortalKey) => ({
  organizationId: k.organizationId,
  mode: k.mode,
  buyerEmail: k.email.trim().toLowerCase(),
  status: { $in: [...PORTAL_VISIBLE] },
});

/** A portal-visible schedule of this buyer; anything else (another buyer's, hidden) is a 404. */
async function buyerSchedule(deps: RecurringDeps, k: PortalKey, id: string): Promise<ScheduleDoc> {
  const s = isObjectId(id) ? await schedules(deps).get(id) : null;
  const email = k.email.trim().toLowerCase();
  if (
    !s ||
    s.organizationId !== k.organizationId ||
    s.mode !== k.mode ||
    s.buyerEmail !== email ||
    !email ||
    !PORTAL_VISIBLE.includes(s.status)
  ) {
    throw new NotFoundError(`subscription ${id} not found`);
  }
  return s;
}

export async function countPortal(deps: RecurringDeps, k: PortalKey) {
  if (!k.email.trim()) return { count: 0 };
  return { count: await schedules(deps).count(portalFilter(k)) };
}

export async function listPortal(deps: RecurringDeps, k: PortalKey, q: { page: number; limit: number }) {
  if (!k.email.trim()) return { subscriptions: [], total: 0, page: q.page, limit: q.limit };
  const page = await schedules(deps).find(portalFilter(k), {
    sort: { createdAt: -1 },
    page: q.page,
    limit: q.limit,
    total: true,
  });
  const subscriptions = await Promise.all(
    page.items.map(async (s) => {
      const next = await charges(deps, s, DEFAULT_UPCOMING_CHARGES);
      return {
        id: s.id,
        ...summaryOf(s),
        estimatedNextAmount: next[0]?.estimatedTotal ?? 0,
        upcomingChargesCount: next.length,
      };
    }),
  );
  return { subscriptions, total: page.total, page: q.page, limit: q.limit };
}

export async function portalUpcoming(deps: RecurringDeps, k: PortalKey, id: string, count: number) {
  const s = await buyerSchedule(deps, k, id);
  return upcomingOf(deps, s, count, await deps.billing.proformaPreviewsEnabled(k));
}

/**
 * The pro forma PDF preview of the buyer's subscription's first upcoming charge: the invoice its
 * cycle would make, dated on the charge's day, rendered by billing with nothing stored. Any other
 * charge, previews off, or a subscription without upcoming charges: 404.
 */
export async function portalUpcomingProforma(
  deps: RecurringDeps,
  k: PortalKey,
  id: string,
  upcomingId: string,
): Promise<{ pdf: Buffer; filename: string }> {
  const s = await buyerSchedule(deps, k, id);
  if (!(await deps.billing.proformaPreviewsEnabled(k)))
    throw new NotFoundError('pro forma previews are not offered by this organization', { field: 'upcomingId' });
  const first = upcomingCycles(s, 1)[0];
  if (first === undefined || chargeId(s, first) !== upcomingId)
    throw new NotFoundError(`no pro forma preview for upcoming charge ${upcomingId}`, { field: 'upcomingId' });
  const scheduledDate = dateOfCycle(s, first);
  return deps.billing.proformaPreview(k, {
    sourceId: s.id,
    number: previewNumber(s, first),
    invoice: { ...cycleInvoiceBody(s, first), issueDate: scheduledDate },
  });
}

export async function portalCancel(deps: RecurringDeps, k: PortalKey, id: string, cancel: RecurringCancel) {
  const s = await buyerSchedule(deps, k, id);
  const out = await cancelSchedule(deps, k, s.id, cancel, `portal:${k.email.trim().toLowerCase()}`);
  const at = effectiveAt(out.schedule);
  return {
    subscriptionId: s.id,
    status: out.schedule.status,
    alreadyCancelled: out.alreadyCancelled,
    effectiveAt: at,
    cancellationReason: out.schedule.cancellationReason,
    cancellationRequestedAt: out.schedule.cancellationRequestedAt,
    message: out.alreadyCancelled
      ? 'This subscription was already cancelled; nothing changed.'
      : at
        ? `Your subscription ends on ${effectiveDate(out.schedule) ?? at}: no charge from that date on.`
        : 'Your subscription is cancelled.',
  };
}
