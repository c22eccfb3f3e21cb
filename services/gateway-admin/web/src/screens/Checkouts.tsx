import { useState, type FormEvent } from 'react';
import { api, must } from '../api';
import { dateTime, money, parseAmount } from '../format';
import { useI18n } from '../i18n';
import { can } from '../session';
import { ListTable } from '../table';
import { Section, useMember, useOrgMutation, useOrgQuery, useOrgTimeZone, useSites } from '../ui';

export function Checkouts() {
  const { t, locale } = useI18n();
  const { role } = useMember();
  const zone = useOrgTimeZone();
  const list = useOrgQuery(['checkouts'], async () =>
    must(await api.GET('/api/v1/checkouts', { params: { query: { limit: 20 } } })),
  );
  return (
    <>
      <h1>{t('checkouts.title')}</h1>
      {can(role, 'write') && <CreateCheckout />}
      <Section title={t('checkouts.list')} id="checkout-list">
        <ListTable
          q={list}
          empty={t('checkouts.empty')}
          columns={[
            {
              header: t('payments.created'),
              cell: (c) => <a href={c.paymentUrl}>{dateTime(c.createdAt, zone, locale)}</a>,
            },
            { header: t('payments.reference'), cell: (c) => c.externalReference ?? '—' },
            { header: t('checkouts.status'), cell: (c) => c.status },
            { header: t('payments.amount'), num: true, cell: (c) => money(c.amount, c.currency, locale) },
          ]}
        />
      </Section>
    </>
  );
}

function CreateCheckout() {
  const { t } = useI18n();
  const sites = useSites();
  const [form, setForm] = useState({
    siteId: '',
    amount: '',
    currency: 'EUR',
    reference: '',
    item: '',
    quantity: '1',
    returnUrl: '',
    ipnUrl: '',
  });
  const [copied, setCopied] = useState(false);
  const create = useOrgMutation(async () => {
    const siteId = form.siteId || sites.data?.items[0]?.id;
    const amount = parseAmount(form.amount, form.currency);
    if (!siteId) throw new Error(t('checkouts.site'));
    if (amount === null) throw new Error(t('checkouts.amount'));
    const quantity = Math.max(1, Number(form.quantity) || 1);
    return must(
      await api.POST('/api/v1/checkouts/{siteId}/create', {
        params: { path: { siteId } },
        body: {
          amount: amount * quantity,
          currency: form.currency,
          ...(form.reference ? { externalReference: form.reference } : {}),
          ...(form.item ? { items: [{ name: form.item, quantity, unitPrice: amount }] } : {}),
          ...(form.returnUrl ? { returnUrl: form.returnUrl } : {}),
          ...(form.ipnUrl ? { ipnUrl: form.ipnUrl } : {}),
        },
      }),
    );
  }, ['checkouts']);
  const field = (name: keyof typeof form, label: string, type = 'text') => (
    <div>
      <label htmlFor={`co-${name}`}>{label}</label>
      <input
        id={`co-${name}`}
        type={type}
        value={form[name]}
        onChange={(e) => setForm({ ...form, [name]: e.target.value })}
      />
    </div>
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setCopied(false);
    create.mutate();
  };
  return (
    <Section title={t('checkouts.create')} id="create-checkout">
      <form className="grid-form" onSubmit={submit}>
        <div>
          <label htmlFor="co-site">{t('checkouts.site')}</label>
          <select id="co-site" value={form.siteId} onChange={(e) => setForm({ ...form, siteId: e.target.value })}>
            {sites.data?.items.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name}
              </option>
            ))}
          </select>
        </div>
        {field('amount', t('checkouts.amount'))}
        <div>
          <label htmlFor="co-currency">{t('checkouts.currency')}</label>
          <select
            id="co-currency"
            value={form.currency}
            onChange={(e) => setForm({ ...form, currency: e.target.value })}
          >
            {['EUR', 'USD', 'GBP', 'CHF'].map((c) => (
              <option key={c}>{c}</option>
            ))}
          </select>
        </div>
        {field('item', t('checkouts.itemName'))}
        {field('quantity', t('checkouts.quantity'), 'number')}
        {field('reference', t('checkouts.reference'))}
        {field('returnUrl', t('checkouts.returnUrl'), 'url')}
        {field('ipnUrl', t('checkouts.ipnUrl'), 'url')}
        <div className="actions">
          <button type="submit" disabled={create.isPending}>
            {t('checkouts.submit')}
          </button>
        </div>
      </form>
      {create.isError && (
        <p role="alert" className="notice error">
          {t('checkouts.failed', { message: create.error.message })}
        </p>
      )}
      {create.data && (
        <div role="status" className="notice">
          <p>{t('checkouts.created')}</p>
          <p>
            <code data-testid="payment-url">{create.data.paymentUrl}</code>{' '}
            <button
              type="button"
              className="secondary"
              onClick={() => {
                void navigator.clipboard.writeText(create.data.paymentUrl).then(() => setCopied(true));
              }}
            >
              {t('checkouts.copy')}
            </button>{' '}
            {copied && <span>{t('checkouts.copied')}</span>}
          </p>
        </div>
      )}
    </Section>
  );
}
