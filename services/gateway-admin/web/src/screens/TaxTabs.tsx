import { SubNav } from '../layout';
import { useI18n } from '../i18n';

/** The links between the tax screens: settings with rates and rules, reports, records. */
export function TaxTabs() {
  const { t } = useI18n();
  return (
    <SubNav
      label={t('tax.sections')}
      links={[
        { to: '/tax', label: t('tax.settingsTab'), exact: true },
        { to: '/tax/reports', label: t('tax.reportsTab') },
        { to: '/tax/records', label: t('tax.recordsTab') },
      ]}
    />
  );
}
