import { SubNav } from '../../layout';
import type { ReactNode } from 'react';
import { useI18n } from '../../i18n';
import { can } from '../../session';
import { useMember } from '../../ui';

/** The settings screens: title, their own navigation and the screen. */
export function SettingsPage({ title, children }: { title: string; children: ReactNode }) {
  const { t } = useI18n();
  const { role } = useMember();
  return (
    <>
      <h1>{title}</h1>
      <SubNav
        label={t('settings.title')}
        links={[
          { to: '/settings', label: t('org.title'), exact: true },
          { to: '/settings/invoicing', label: t('invoicing.settingsTitle') },
          { to: '/settings/sites', label: t('settings.sites') },
          { to: '/settings/domains', label: t('domains.title') },
          { to: '/settings/providers', label: t('settings.providers') },
          can(role, 'admin') && { to: '/settings/api-keys', label: t('settings.apiKeys') },
        ]}
      />
      {children}
    </>
  );
}
