import { useMutation } from '@tanstack/react-query';
import { api, must } from './api';
import { isMessageKey, useI18n } from './i18n';
import { ErrorNote } from './ui';

/**
 * The integrity check of issued documents (GET /documents/integrity, Admins): runs on request and
 * shows whether every hash chain is intact, or names the first broken link (series, number, document).
 */
export function IntegrityCheck() {
  const { t } = useI18n();
  const check = useMutation({
    mutationFn: async () => must(await api.GET('/api/v1/documents/integrity', {})),
  });
  const report = check.data;
  const broken = report?.firstBroken;
  const reason = broken && `integrity.reason.${broken.reason}`;
  return (
    <section aria-labelledby="integrity-heading" className="card" id="integrity">
      <h2 id="integrity-heading">{t('audit.integrity')}</h2>
      <p className="muted">{t('integrity.intro')}</p>
      <button type="button" disabled={check.isPending} onClick={() => check.mutate()}>
        {t('audit.check')}
      </button>
      {check.isError && <ErrorNote error={check.error} />}
      {report && (
        <div
          role="status"
          data-testid="integrity-result"
          data-ok={String(report.ok)}
          className={`notice ${report.ok ? '' : 'error'}`}
        >
          {report.ok || !broken ? (
            <p>{t('audit.intact', { entries: report.entries, documents: report.documents })}</p>
          ) : (
            <>
              <p>
                <strong>{t('integrity.broken')}</strong> {reason && isMessageKey(reason) ? t(reason) : broken.reason}
              </p>
              <dl className="facts">
                <div>
                  <dt>{t('integrity.series')}</dt>
                  <dd>{t(`integrity.series.${broken.series}`)}</dd>
                </div>
                <div>
                  <dt>{t('integrity.entry')}</dt>
                  <dd>{broken.seq}</dd>
                </div>
                <div>
                  <dt>{t('integrity.number')}</dt>
                  <dd>{broken.number}</dd>
                </div>
                <div>
                  <dt>{t('integrity.document')}</dt>
                  <dd>
                    <code>{broken.documentId}</code>
                  </dd>
                </div>
              </dl>
              <p className="muted">{broken.detail}</p>
            </>
          )}
        </div>
      )}
    </section>
  );
}
