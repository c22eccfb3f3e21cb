import { Link } from '@tanstack/react-router';
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
      <nav aria-label={t('settings.title')} className="subnav">
        <ul>
          <li>
            <Link to="/settings" activeOptions={{ exact: true }}>
              {t('org.title')}
            </Link>
          </li>
          <li>
            <Link to="/settings/invoicing">{t('invoicing.settingsTitle')}</Link>
          </li>
          <li>
            <Link to="/settings/sites">{t('settings.sites')}</Link>
          </li>
          <li>
            <Link to="/settings/domains">{t('domains.title')}</Link>
          </li>
          <li>
            <Link to="/settings/providers">{t('settings.providers')}</Link>
          </li>
          {can(role, 'admin') && (
            <li>
              <Link to="/settings/api-keys">{t('settings.apiKeys')}</Link>
            </li>
          )}
        </ul>
      </nav>
      {children}
    </>
  );
}
