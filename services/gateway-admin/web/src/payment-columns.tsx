import { Link } from '@tanstack/react-router';
import { dateTime, money } from './format';
import type { Translate } from './i18n';
import type { Column } from './table';
import { StatusBadge } from './ui';

/** The columns a list of payments shares (the payments list, the overview's newest), `created` linking to the payment. */
export function paymentColumns(t: Translate, locale: string, zone: string) {
  const created: Column<{ id: string; createdAt: string }> = {
    header: t('payments.created'),
    cell: (r) => (
      <Link to="/payments/$id" params={{ id: r.id }}>
        {dateTime(r.createdAt, zone, locale)}
      </Link>
    ),
  };
  const reference: Column<{ externalReference?: string | null | undefined }> = {
    header: t('payments.reference'),
    cell: (r) => r.externalReference ?? '—',
  };
  const status: Column<{ status: number }> = {
    header: t('payments.status'),
    cell: (r) => <StatusBadge status={r.status} />,
  };
  const amount: Column<{ amount: number; currency: string }> = {
    header: t('payments.amount'),
    num: true,
    cell: (r) => money(r.amount, r.currency, locale),
  };
  return { created, reference, status, amount };
}
