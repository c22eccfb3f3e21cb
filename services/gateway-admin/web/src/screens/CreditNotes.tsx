import { useMutation, useQuery } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { BackLink } from '../layout';
import { api, must, saveBlobAnswer } from '../api';
import { DateRangeFields } from '../forms';
import { day, money } from '../format';
import { useI18n } from '../i18n';
import { DocumentEmails, download } from '../invoicing';
import { FilterForm, onlySet, PagedTable, usePagedList } from '../list';
import type { CreditNotesSearch } from '../search';
import { can } from '../session';
import { ErrorNote, Facts, Loaded, Section, useMember, useOrgQuery } from '../ui';

const XML_FORMATS = ['xrechnung', 'peppol', 'zugferd'] as const;
type XmlFormat = (typeof XML_FORMATS)[number];
const XML_LABEL: Record<XmlFormat, string> = { xrechnung: 'XRechnung', peppol: 'Peppol BIS', zugferd: 'ZUGFeRD (CII)' };

/** Credit notes, newest first: issue dates filter, server-side paging. */
export function CreditNotes({ search }: { search: CreditNotesSearch }) {
  const { t, locale } = useI18n();
  const navigate = useNavigate();
  const list = usePagedList({
    key: ['credit-notes', 'list'],
    search,
    go: (next: CreditNotesSearch) => void navigate({ to: '/credit-notes', search: next }),
    read: async (page, limit) =>
      must(
        await api.GET('/api/v1/credit-notes', {
          params: { query: { page, limit, ...onlySet({ startDate: search.startDate, endDate: search.endDate }) } },
        }),
      ),
  });
  return (
    <>
      <h1>{t('creditNotes.title')}</h1>
      <FilterForm onApply={list.apply}>
        <DateRangeFields
          idPrefix="cf"
          value={list.draft}
          onChange={(range) => list.setDraft({ ...list.draft, ...range })}
        />
      </FilterForm>
      <PagedTable
        {...list.paging}
        testId="credit-notes"
        caption={t('creditNotes.title')}
        empty={t('creditNotes.empty')}
        recordLink={{ header: t('invoices.number'), to: '/credit-notes/$id', text: (n) => n.number }}
        columns={[
          {
            header: t('creditNotes.invoice'),
            cell: (n) => (
              <Link to="/invoices/$id" params={{ id: n.invoiceId }}>
                {n.invoiceNumber}
              </Link>
            ),
          },
          { header: t('creditNotes.kind'), cell: (n) => t(`creditNoteKind.${n.kind}`) },
          { header: t('invoices.client'), cell: (n) => n.buyer.name },
          { header: t('invoices.issueDate'), cell: (n) => day(n.issueDate, locale) },
          { header: t('invoices.gross'), num: true, cell: (n) => money(n.totals.gross, n.currency, locale) },
        ]}
      />
    </>
  );
}

/** Saves the e-invoice XML of a credit note in a format (signed-in call, like the other documents). */
async function downloadXml(id: string, format: XmlFormat, fallback: string): Promise<void> {
  saveBlobAnswer(
    await api.GET('/api/v1/credit-notes/{id}/xml', { params: { path: { id }, query: { format } }, parseAs: 'blob' }),
    fallback,
  );
}

/** A credit note: what it credits, its downloads (PDF, e-invoice XML) and e-mail. */
export function CreditNoteScreen({ id }: { id: string }) {
  const { t, locale } = useI18n();
  const { organization, role } = useMember();
  const note = useQuery({
    queryKey: [organization.id, 'credit-notes', id],
    queryFn: async () => must(await api.GET('/api/v1/credit-notes/{id}', { params: { path: { id } } })),
    // While an e-mail is queued, follow it until the SMTP server answered.
    refetchInterval: (q) => (q.state.data?.emails?.some((e) => e.state === 'queued') ? 1000 : false),
  });
  return (
    <Loaded q={note}>
      {(n) => (
        <>
          <BackLink to="/credit-notes" label={t('creditNotes.back')} />
          <h1>{t('creditNotes.heading', { number: n.number })}</h1>
          <Section title={t('invoices.details')} id="credit-note-details">
            <Facts
              rows={[
                [t('invoices.number'), <span data-testid="credit-note-number">{n.number}</span>],
                [
                  t('creditNotes.invoice'),
                  <Link to="/invoices/$id" params={{ id: n.invoiceId }}>
                    {n.invoiceNumber}
                  </Link>,
                ],
                [t('creditNotes.kind'), t(`creditNoteKind.${n.kind}`)],
                [t('invoices.voidReason'), n.reason ?? '—'],
                [t('invoices.client'), n.buyer.name],
                [t('invoices.issueDate'), day(n.issueDate, locale)],
                [t('invoices.net'), money(n.totals.net, n.currency, locale)],
                [t('invoices.vat'), money(n.totals.tax, n.currency, locale)],
                [t('invoices.gross'), money(n.totals.gross, n.currency, locale)],
              ]}
            />
            {/* Downloads and e-mail are credit_note:execute, which a Viewer does not hold. */}
            {can(role, 'write') && <Downloads id={n.id} number={n.number} />}
          </Section>
          <DocumentEmails
            sectionId="credit-note-email"
            prefix="cn"
            testId="credit-note-emails"
            emails={n.emails ?? []}
            send={async (body) =>
              must(await api.POST('/api/v1/credit-notes/{id}/send-email', { params: { path: { id: n.id } }, body }))
            }
            refresh={['credit-notes', n.id]}
          />
        </>
      )}
    </Loaded>
  );
}

function Downloads({ id, number }: { id: string; number: string }) {
  const { t } = useI18n();
  const settings = useOrgQuery(['settings', 'invoicing'], async () =>
    must(await api.GET('/api/v1/organizations/settings/invoicing')),
  );
  const e = settings.data?.eInvoice;
  const formats = e?.enabled ? XML_FORMATS.filter((f) => e.allowedFormats.includes(f)) : [];
  const get = useMutation({
    mutationFn: (f: XmlFormat | 'pdf') =>
      f === 'pdf'
        ? download('/api/v1/credit-notes/{id}/pdf', id, `${number}.pdf`)
        : downloadXml(id, f, `${number}-${f}.xml`),
  });
  return (
    <div className="delivery">
      <div className="row-actions">
        <button type="button" className="secondary" data-download="pdf" onClick={() => get.mutate('pdf')}>
          {t('invoices.downloadPdf')}
        </button>
        {formats.map((f) => (
          <button key={f} type="button" className="secondary" data-download={f} onClick={() => get.mutate(f)}>
            {t('invoices.downloadFormat', { format: XML_LABEL[f] })}
          </button>
        ))}
      </div>
      {get.isError && <ErrorNote error={get.error} />}
    </div>
  );
}
