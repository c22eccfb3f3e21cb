import { useState, type ReactNode } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { BackLink } from '../layout';
import { api, must } from '../api';
import { count, dateTime, money } from '../format';
import { isMessageKey, useI18n } from '../i18n';
import { SelectField, TextField } from '../forms';
import { ResourceHistory } from '../history';
import { can } from '../session';
import { ErrorNote, Facts, Loading, Section, StatusBadge, useMember, useOrgTimeZone } from '../ui';

const DECISIONS = ['under_review', 'won', 'lost', 'accepted'] as const;

/** An Admin decides an open dispute by hand (the spec's rules: lost/accepted credit and hold, won restores the payment). */
function DecideChargeback({
  transactionId,
  chargebackId,
  onDone,
}: {
  transactionId: string;
  chargebackId: string;
  onDone: () => void;
}) {
  const { t } = useI18n();
  const [status, setStatus] = useState<(typeof DECISIONS)[number]>('won');
  const [reason, setReason] = useState('');
  const decide = useMutation({
    mutationFn: async () =>
      must(
        await api.PATCH('/api/v1/transactions/{id}/chargeback/{chargebackId}', {
          params: { path: { id: transactionId, chargebackId } },
          body: { status, ...(reason ? { reason } : {}) },
        }),
      ),
    onSuccess: onDone,
  });
  const field = `cb-${chargebackId}`;
  return (
    <form
      className="grid-form"
      aria-label={t('tx.decide')}
      onSubmit={(e) => {
        e.preventDefault();
        decide.mutate();
      }}
    >
      <SelectField
        id={`${field}-status`}
        label={t('tx.decision')}
        value={status}
        options={DECISIONS.map((x) => [x, t(`cb.${x}`)] as const)}
        onChange={setStatus}
      />
      <TextField
        id={`${field}-reason`}
        label={t('tx.decisionReason')}
        maxLength={500}
        value={reason}
        onChange={setReason}
      />
      <div className="actions">
        <button type="submit" disabled={decide.isPending}>
          {t('tx.decisionSubmit')}
        </button>
      </div>
      {decide.isError && <ErrorNote error={decide.error} />}
    </form>
  );
}

/** A section of the payment's events of one kind: a line each, or the `empty` line when there are none. */
function EventSection<T extends { id: string }>({
  title,
  id,
  empty,
  items,
  children,
}: {
  title: string;
  id: string;
  empty: string;
  items: readonly T[];
  children: (item: T) => ReactNode;
}) {
  return (
    <Section title={title} id={id}>
      {items.length === 0 ? (
        <p className="muted">{empty}</p>
      ) : (
        <ul>
          {items.map((item) => (
            <li key={item.id}>{children(item)}</li>
          ))}
        </ul>
      )}
    </Section>
  );
}

export function Transaction({ id }: { id: string }) {
  const { t, locale } = useI18n();
  const { organization, role } = useMember();
  const zone = useOrgTimeZone();
  const queries = useQueryClient();
  const [notice, setNotice] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null);
  const key = [organization.id, 'transaction', id];
  const tx = useQuery({
    queryKey: key,
    queryFn: async () => must(await api.GET('/api/v1/transactions/{id}', { params: { path: { id } } })),
    // While an IPN is on its way, its attempts are followed as they happen.
    refetchInterval: (q) => (q.state.data?.ipn?.deliveries.some((d) => d.state === 'pending') ? 2000 : false),
  });
  const tax = useQuery({
    queryKey: [organization.id, 'transaction', id, 'tax'],
    queryFn: async () => must(await api.GET('/api/v1/transactions/{id}/tax', { params: { path: { id } } })),
  });
  const records = useQuery({
    queryKey: [organization.id, 'transaction', id, 'tax-records'],
    queryFn: async () => must(await api.GET('/api/v1/transactions/{id}/tax-records', { params: { path: { id } } })),
  });
  const redeliver = useMutation({
    mutationFn: async () =>
      must(await api.POST('/api/v1/transactions/{id}/ipn/redeliver', { params: { path: { id } } })),
    onSuccess: () => {
      setNotice({ kind: 'ok', text: t('tx.sendIpnSent') });
      void queries.invalidateQueries({ queryKey: key });
    },
    onError: (err) => setNotice({ kind: 'error', text: t('tx.sendIpnFailed', { message: err.message }) }),
  });

  if (tx.isPending) return <Loading />;
  if (tx.isError) return <ErrorNote error={tx.error} retry={() => void tx.refetch()} />;
  const d = tx.data;
  const when = (iso: string) => dateTime(iso, zone, locale);
  const pending = d.ipn?.deliveries.some((x) => x.state === 'pending') ?? false;
  return (
    <>
      <BackLink to="/payments" label={t('tx.back')} />
      <h1>
        {t('tx.title', { id: d.externalReference ?? d.id })} <StatusBadge status={d.status} />
      </h1>
      <div className="columns">
        <Section title={t('tx.summary')} id="summary">
          <Facts
            rows={[
              [t('tx.amount'), <span data-testid="tx-amount">{money(d.amount, d.currency, locale)}</span>],
              [t('tx.status'), <StatusBadge status={d.status} />],
              [t('tx.provider'), d.providerType ?? '—'],
              [
                t('tx.providerPayment'),
                d.providerPaymentId ? `${d.providerPaymentId} (${d.providerPayment.state})` : '—',
              ],
              [t('tx.reference'), d.externalReference ?? '—'],
              [t('tx.invoiceNumber'), d.invoiceNumber ?? '—'],
              [t('tx.email'), d.email ?? '—'],
              [
                t('tx.created'),
                <time dateTime={d.createdAt} data-testid="tx-created">
                  {when(d.createdAt)}
                </time>,
              ],
            ]}
          />
        </Section>
        <Section title={t('tx.billing')} id="billing">
          {d.billingAddress ? (
            <address>
              {d.billingAddress.name}
              <br />
              {d.billingAddress.line1}
              <br />
              {d.billingAddress.postalCode} {d.billingAddress.city}
              <br />
              {d.billingAddress.country}
              {d.billingAddress.vatId && (
                <>
                  <br />
                  {d.billingAddress.vatId}
                </>
              )}
            </address>
          ) : (
            <p className="muted">{t('tx.noAddress')}</p>
          )}
        </Section>
      </div>
      <Section title={t('tx.tax')} id="tax">
        {tax.data?.tax ? (
          <Facts
            rows={[
              [t('tx.net'), money(tax.data.tax.totalNet, tax.data.tax.currency, locale)],
              [t('tx.taxAmount'), money(tax.data.tax.totalTax, tax.data.tax.currency, locale)],
              [t('tx.grossTotal'), money(tax.data.tax.totalGross, tax.data.tax.currency, locale)],
            ]}
          />
        ) : (
          <p className="muted">{t('tx.taxNone')}</p>
        )}
        {records.data && records.data.items.length > 0 && (
          <>
            <h3>{t('tx.taxRecords')}</h3>
            <ul>
              {records.data.items.map((r) => (
                <li key={r.id}>
                  {r.taxPointDate} · {r.entryType} · {money(r.totals.tax, r.currency, locale)}
                </li>
              ))}
            </ul>
          </>
        )}
      </Section>
      <Section title={t('tx.timeline')} id="timeline">
        <ol className="timeline">
          {d.statusHistory.map((h, i) => (
            <li key={i}>
              <time dateTime={h.at}>{when(h.at)}</time> <StatusBadge status={h.to} />{' '}
              <span className="muted">
                {t('tx.trigger')}: {h.trigger}
                {h.reason ? ` · ${t('tx.reason')}: ${h.reason}` : ''}
              </span>
            </li>
          ))}
        </ol>
      </Section>
      <div className="columns">
        <EventSection title={t('tx.refunds')} id="refunds" empty={t('tx.noRefunds')} items={d.refunds}>
          {(r) => (
            <>
              {when(r.at)} · {money(r.amount, r.currency, locale)}
            </>
          )}
        </EventSection>
        <EventSection title={t('tx.chargebacks')} id="chargebacks" empty={t('tx.noChargebacks')} items={d.chargebacks}>
          {(c) => (
            <>
              {when(c.at)} · {t(`cb.${c.status}`)} · {money(c.amount, c.currency, locale)}
              {c.reason ? ` · ${c.reason}` : ''}
              {c.decidedBy ? ` · ${c.decidedBy}` : ''}
              {can(role, 'admin') && (c.status === 'open' || c.status === 'under_review') && (
                <DecideChargeback
                  transactionId={d.id}
                  chargebackId={c.id}
                  onDone={() => void queries.invalidateQueries({ queryKey: key })}
                />
              )}
            </>
          )}
        </EventSection>
      </div>
      <Section title={t('tx.ipn')} id="ipn">
        {!d.ipnUrl && <p className="muted">{t('tx.ipnNoUrl')}</p>}
        {d.ipnUrl && can(role, 'write') && (
          <p>
            <button
              type="button"
              data-testid="send-ipn-again"
              disabled={redeliver.isPending || pending}
              onClick={() => {
                setNotice(null);
                redeliver.mutate();
              }}
            >
              {t('tx.sendIpnAgain')}
            </button>
          </p>
        )}
        {notice && (
          <p
            role={notice.kind === 'error' ? 'alert' : 'status'}
            className={`notice ${notice.kind === 'error' ? 'error' : ''}`}
          >
            {notice.text}
          </p>
        )}
        {d.ipn === null && <p className="muted">{t('tx.ipnUnavailable')}</p>}
        {d.ipn && d.ipn.deliveries.length === 0 && d.ipnUrl && <p className="muted">{t('tx.ipnNone')}</p>}
        {d.ipn?.deliveries.map((del) => {
          const state = `ipnState.${del.state}`;
          return (
            <div key={del.id} className="delivery">
              <p>
                {t('tx.ipnStatus')}: <StatusBadge status={del.status} /> · {t('tx.ipnState')}:{' '}
                <strong>{isMessageKey(state) ? t(state) : del.state}</strong> · <code>{del.url}</code>
              </p>
              <div className="table-wrap">
                <table data-testid="ipn-attempts">
                  <thead>
                    <tr>
                      <th scope="col">{t('tx.attempt')}</th>
                      <th scope="col">{t('tx.attemptAt')}</th>
                      <th scope="col">{t('tx.httpStatus')}</th>
                      <th scope="col" className="num">
                        {t('tx.duration')}
                      </th>
                      <th scope="col">{t('tx.error')}</th>
                      <th scope="col">{t('tx.requestedBy')}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {del.attempts.map((a) => (
                      <tr key={a.number}>
                        <td>{a.number}</td>
                        <td>{when(a.at)}</td>
                        <td>{a.httpStatus ?? '—'}</td>
                        <td className="num">{count(a.durationMs, locale)} ms</td>
                        <td>{a.error ?? '—'}</td>
                        <td>{a.requestedBy ?? t('tx.automatic')}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </div>
          );
        })}
      </Section>
      <ResourceHistory resource="transaction" id={d.id} />
    </>
  );
}
