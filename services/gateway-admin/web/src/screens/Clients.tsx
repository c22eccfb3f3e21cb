import { useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { BackLink } from '../layout';
import { api, must, mustOk } from '../api';
import { dateTime } from '../format';
import { CheckField, GridForm, SearchField, SelectField, TextField, useFields, WriteButton } from '../forms';
import { useI18n, type MessageKey } from '../i18n';
import { bodyOf, formOf, PEPPOL_SCHEMES, type ClientFormState, type PeppolScheme } from '../client-form';
import { invoiceColumns, type Client } from '../invoicing';
import { PagedTable } from '../list';
import type { ClientsSearch } from '../search';
import { can } from '../session';
import { ListTable } from '../table';
import { ErrorNote, Facts, Loaded, Section, useMember, useOrgMutation, useOrgQuery, useOrgTimeZone } from '../ui';
import { ConfirmDialog } from '../confirm';
import { ResourceHistory } from '../history';

const PAGE_SIZE = 20;

/** Clients: search (name, e-mail or exact tax ID) or the newest first, paged by the server; create. */
export function Clients({ search }: { search: ClientsSearch }) {
  const { t } = useI18n();
  const { role } = useMember();
  const navigate = useNavigate();
  const page = search.page ?? 1;
  const [q, setQ] = useState(search.q ?? '');
  const [creating, setCreating] = useState(false);
  const list = useOrgQuery(['clients', search], async () =>
    search.q
      ? must(await api.GET('/api/v1/clients/search', { params: { query: { q: search.q, page, limit: PAGE_SIZE } } }))
      : must(await api.GET('/api/v1/clients', { params: { query: { page, limit: PAGE_SIZE } } })),
  );
  const go = (next: ClientsSearch) => void navigate({ to: '/clients', search: next });
  const apply = (e: FormEvent) => {
    e.preventDefault();
    go({ q: q.trim() || undefined });
  };
  return (
    <>
      <h1>{t('clients.title')}</h1>
      {/* Search is client:execute, which a Viewer does not hold: a Viewer pages through the list. */}
      {can(role, 'write') && (
        <form className="filters" role="search" onSubmit={apply} aria-label={t('clients.search')}>
          <SearchField
            id="c-q"
            label={t('clients.search')}
            value={q}
            placeholder={t('clients.searchHint')}
            onChange={setQ}
          />
          <div className="actions">
            <button type="submit">{t('payments.apply')}</button>
          </div>
        </form>
      )}
      {can(role, 'write') &&
        (creating ? (
          <Section title={t('clients.create')} id="create-client">
            <ClientForm
              onSaved={(c) => void navigate({ to: '/clients/$id', params: { id: c.id } })}
              onCancel={() => setCreating(false)}
            />
          </Section>
        ) : (
          <p>
            <button type="button" id="new-client" onClick={() => setCreating(true)}>
              {t('clients.new')}
            </button>
          </p>
        ))}
      <PagedTable
        q={list}
        page={page}
        limit={PAGE_SIZE}
        onPage={(p) => go({ ...search, page: p })}
        testId="clients"
        caption={t('clients.title')}
        empty={t('clients.empty')}
        recordLink={{ header: t('clients.name'), to: '/clients/$id', text: (c) => c.name }}
        columns={[
          { header: t('payments.email'), cell: (c) => c.email ?? '—' },
          { header: t('clients.country'), cell: (c) => c.address?.country ?? c.taxInfo?.taxCountry ?? '—' },
          { header: t('clients.taxId'), cell: (c) => c.taxInfo?.taxId?.masked ?? '—' },
        ]}
      />
    </>
  );
}

const SCHEME_HINT: Record<PeppolScheme, MessageKey> = {
  '': 'clients.peppolNone',
  '9930': 'clients.peppol9930',
  '0088': 'clients.peppol0088',
  '0204': 'clients.peppol0204',
};

/** Create (no `client`) or edit a client: addresses, tax data, Peppol routing address, language and e-invoice format. */
export function ClientForm({
  client,
  onSaved,
  onCancel,
}: {
  client?: Client;
  onSaved: (c: Client) => void;
  onCancel?: () => void;
}) {
  const { t } = useI18n();
  const before = client ? formOf(client) : undefined;
  const [f, set] = useFields<ClientFormState>(() => formOf(client));
  const save = useOrgMutation(
    async () => {
      const body = bodyOf(f, before);
      return client
        ? must(await api.PUT('/api/v1/clients/{id}', { params: { path: { id: client.id } }, body }))
        : must(await api.POST('/api/v1/clients', { body }));
    },
    ['clients'],
    (saved) => onSaved(saved),
  );
  const masked = client?.taxInfo?.taxId && client.taxInfo.taxId.plaintext === undefined;
  return (
    <GridForm
      id="client-form"
      label={client ? t('clients.edit') : t('clients.create')}
      submit={t('clients.save')}
      write={save}
    >
      <TextField
        id="cl-name"
        label={t('clients.name')}
        value={f.name}
        onChange={set('name')}
        required
        maxLength={200}
      />
      <TextField id="cl-email" label={t('payments.email')} type="email" value={f.email} onChange={set('email')} plain />
      <TextField id="cl-phone" label={t('clients.phone')} value={f.phone} onChange={set('phone')} />
      <TextField id="cl-street" label={t('clients.street')} value={f.street} onChange={set('street')} />
      <TextField id="cl-postalCode" label={t('clients.postalCode')} value={f.postalCode} onChange={set('postalCode')} />
      <TextField id="cl-city" label={t('clients.city')} value={f.city} onChange={set('city')} />
      {(['country', 'taxCountry'] as const).map((key) => (
        <TextField
          key={key}
          id={`cl-${key}`}
          label={t(`clients.${key}`)}
          hint={t('clients.countryHint')}
          value={f[key]}
          onChange={set(key)}
          maxLength={2}
          pattern="[A-Za-z]{2}"
          plain
        />
      ))}
      <SelectField
        id="cl-taxIdType"
        label={t('clients.taxIdType')}
        value={f.taxIdType}
        onChange={set('taxIdType')}
        options={[
          ['', t('clients.taxIdOther')],
          ['vat', t('clients.taxIdVat')],
        ]}
      />
      <TextField
        id="cl-taxId"
        label={t('clients.taxId')}
        hint={
          masked ? t('clients.taxIdMasked', { masked: client?.taxInfo?.taxId?.masked ?? '' }) : t('clients.taxIdHint')
        }
        value={f.taxId}
        onChange={set('taxId')}
        plain
      />
      <SelectField
        id="cl-peppolScheme"
        label={t('clients.peppolScheme')}
        hint={t(SCHEME_HINT[f.peppolScheme])}
        value={f.peppolScheme}
        onChange={set('peppolScheme')}
        options={PEPPOL_SCHEMES.map((s) => [s, s ? t(`clients.scheme${s}`) : t('clients.peppolNoneOption')] as const)}
      />
      {f.peppolScheme && (
        <>
          <TextField
            id="cl-peppolValue"
            label={t('clients.peppolValue')}
            value={f.peppolValue}
            onChange={set('peppolValue')}
            plain
            {...(client?.taxInfo?.peppolRoutingAddress && f.peppolValue === ''
              ? { hint: t('clients.taxIdMasked', { masked: client.taxInfo.peppolRoutingAddress.value.masked }) }
              : {})}
          />
          <CheckField
            id="cl-peppolConfirmed"
            label={t('clients.peppolConfirmed')}
            checked={f.peppolConfirmed}
            onChange={set('peppolConfirmed')}
          />
        </>
      )}
      <SelectField
        id="cl-language"
        label={t('clients.language')}
        value={f.language}
        onChange={set('language')}
        options={[
          ['', t('clients.orgDefault')],
          ['en', 'English'],
          ['de', 'Deutsch'],
        ]}
      />
      <SelectField
        id="cl-eInvoiceFormat"
        label={t('clients.eInvoiceFormat')}
        value={f.eInvoiceFormat}
        onChange={set('eInvoiceFormat')}
        options={[
          ['', t('clients.orgRule')],
          ['xrechnung', 'XRechnung'],
          ['zugferd', 'ZUGFeRD'],
          ['none', t('clients.formatNone')],
        ]}
      />
      <TextField id="cl-notes" label={t('clients.notes')} value={f.notes} onChange={set('notes')} />
      {onCancel && (
        <div className="actions">
          <button type="button" className="secondary" onClick={onCancel}>
            {t('clients.cancel')}
          </button>
        </div>
      )}
    </GridForm>
  );
}

/** A client: its data, VAT ID check, invoices; edit (Editor) and delete (Admin). */
export function ClientScreen({ id }: { id: string }) {
  const { t, locale } = useI18n();
  const { role } = useMember();
  const zone = useOrgTimeZone();
  const navigate = useNavigate();
  const [editing, setEditing] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const client = useOrgQuery(['clients', 'one', id], async () =>
    must(await api.GET('/api/v1/clients/{id}', { params: { path: { id } } })),
  );
  const invoices = useOrgQuery(['invoices', { clientId: id }], async () =>
    must(await api.GET('/api/v1/invoices', { params: { query: { clientId: id, limit: 50 } } })),
  );
  const remove = useOrgMutation(
    async () => mustOk(await api.DELETE('/api/v1/clients/{id}', { params: { path: { id } } })),
    ['clients'],
    () => void navigate({ to: '/clients' }),
  );
  return (
    <Loaded q={client}>
      {(c) => (
        <>
          <BackLink to="/clients" label={t('clients.back')} />
          <h1>{t('clients.heading', { name: c.name })}</h1>
          {editing ? (
            <Section title={t('clients.edit')} id="edit-client">
              <ClientForm client={c} onSaved={() => setEditing(false)} onCancel={() => setEditing(false)} />
            </Section>
          ) : (
            <Section title={t('clients.details')} id="client-details">
              <Facts
                rows={[
                  [t('payments.email'), c.email ?? '—'],
                  [t('clients.phone'), c.phone ?? '—'],
                  [
                    t('clients.address'),
                    c.address
                      ? `${c.address.street}, ${c.address.postalCode} ${c.address.city}, ${c.address.country}`
                      : '—',
                  ],
                  [t('clients.taxCountry'), c.taxInfo?.taxCountry ?? '—'],
                  [
                    t('clients.taxId'),
                    c.taxInfo?.taxId
                      ? `${c.taxInfo.taxId.plaintext ?? c.taxInfo.taxId.masked} (${c.taxInfo.taxIdType ?? '—'})`
                      : '—',
                  ],
                  [
                    t('clients.peppol'),
                    c.taxInfo?.peppolRoutingAddress
                      ? `${c.taxInfo.peppolRoutingAddress.schemeId}:${c.taxInfo.peppolRoutingAddress.value.plaintext ?? c.taxInfo.peppolRoutingAddress.value.masked}`
                      : '—',
                  ],
                  [t('clients.language'), c.language ?? t('clients.orgDefault')],
                  [t('clients.eInvoiceFormat'), c.eInvoiceFormat ?? t('clients.orgRule')],
                  [t('clients.notes'), c.notes ?? '—'],
                  [t('clients.updated'), dateTime(c.updatedAt, zone, locale)],
                ]}
              />
              {c.taxInfo?.taxId && can(role, 'write') && <VatIdCheck clientId={c.id} />}
              <div className="row-actions">
                {can(role, 'write') && (
                  <button type="button" id="edit-client-button" onClick={() => setEditing(true)}>
                    {t('clients.edit')}
                  </button>
                )}
                {can(role, 'write') && (
                  <Link to="/invoices/new" search={{ clientId: c.id }}>
                    {t('invoices.new')}
                  </Link>
                )}
                {can(role, 'admin') && !confirmDelete && (
                  <button type="button" id="delete-client" onClick={() => setConfirmDelete(true)}>
                    {t('clients.delete')}
                  </button>
                )}
              </div>
              {confirmDelete && (
                <ConfirmDialog
                  questionId="delete-client-q"
                  question={t('clients.deleteConfirm', { name: c.name })}
                  confirm={{
                    id: 'delete-client-confirm',
                    label: t('clients.delete'),
                    onClick: () => remove.mutate(undefined),
                  }}
                  back={{ label: t('clients.cancel'), onClick: () => setConfirmDelete(false) }}
                  attempt={remove}
                />
              )}
            </Section>
          )}
          <Section title={t('clients.invoices')} id="client-invoices">
            <ListTable
              q={invoices}
              testId="client-invoices"
              empty={t('invoices.empty')}
              columns={invoiceColumns(t, locale)}
            />
          </Section>
          <ResourceHistory resource="client" id={c.id} />
        </>
      )}
    </Loaded>
  );
}

/** The VAT ID's check as the tax engine reports it (VIES where the organization enables it). */
function VatIdCheck({ clientId }: { clientId: string }) {
  const { t } = useI18n();
  const check = useMutation({
    mutationFn: async () =>
      must(
        await api.POST('/api/v1/invoices/preview-tax', {
          body: {
            clientId,
            currency: 'EUR',
            vatIdValidation: 'vies',
            items: [{ description: 'VAT ID check', quantity: 1, unitPrice: 100, itemType: 'service' }],
          },
        }),
      ),
  });
  const result = check.data?.buyer;
  return (
    <div className="delivery">
      <WriteButton write={check} input={undefined} id="vies-check">
        {t('clients.viesCheck')}
      </WriteButton>
      {result && (
        <p role="status" data-testid="vies-state">
          {t('clients.viesState', { status: t(`vies.${result.vatIdStatus}`) })}
          {result.consultationNumber
            ? ` · ${t('clients.viesConsultation', { number: result.consultationNumber })}`
            : ''}
        </p>
      )}
      {check.isError && <ErrorNote error={check.error} />}
    </div>
  );
}
