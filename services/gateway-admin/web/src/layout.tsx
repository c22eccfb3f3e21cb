import { Link, Outlet, type LinkProps } from '@tanstack/react-router';
import { useQueryClient } from '@tanstack/react-query';
import { LANGUAGES, setLanguage, useI18n, type Language } from './i18n';
import { can, signOut, switchOrganization } from './session';
import { useMember } from './ui';

const isLanguage = (v: string): v is Language => (LANGUAGES as readonly string[]).includes(v);

/** A screen of a section's own navigation; `exact` is active only on that very address, not below it. */
export interface SubNavLink {
  to: LinkProps['to'];
  label: string;
  exact?: boolean;
}

/** The links between the screens of one section (settings, tax); a link given as `false` is left out. */
export function SubNav({ label, links }: { label: string; links: ReadonlyArray<SubNavLink | false> }) {
  return (
    <nav aria-label={label} className="subnav">
      <ul>
        {links
          .filter((l): l is SubNavLink => l !== false)
          .map((l) => (
            <li key={l.to}>
              <Link to={l.to} activeOptions={l.exact ? { exact: true } : undefined}>
                {l.label}
              </Link>
            </li>
          ))}
      </ul>
    </nav>
  );
}

/** The screens a detail screen leads back to: their lists. */
type ListPath = '/payments' | '/invoices' | '/clients' | '/credit-notes' | '/recurring' | '/settings/sites';

/** The link above a detail screen back to its list (the list's first page, no filters). */
export function BackLink({ to, label }: { to: ListPath; label: string }) {
  return (
    <p>
      <Link to={to} search={{}}>
        {label}
      </Link>
    </p>
  );
}

/** The signed-in frame: skip link, header (organization switcher, role, language, sign-out), navigation and the screen. */
export function Layout() {
  const { t } = useI18n();
  const { user, organization, organizations, role, mode } = useMember();
  const queries = useQueryClient();
  return (
    <>
      <a className="skip" href="#main">
        {t('app.skip')}
      </a>
      <header className="top">
        <span className="brand">{t('app.name')}</span>
        <div className="org">
          {organizations.length > 1 ? (
            <>
              <label htmlFor="org-switch">{t('org.switch')}</label>
              <select
                id="org-switch"
                value={organization.id}
                onChange={(e) => {
                  switchOrganization(e.target.value);
                  void queries.invalidateQueries();
                }}
              >
                {organizations.map((o) => (
                  <option key={o.id} value={o.id}>
                    {o.name}
                  </option>
                ))}
              </select>
            </>
          ) : (
            <span>{organization.name}</span>
          )}
          <span className="badge" data-testid="role">
            {t('nav.role', { role: t(`role.${role}`) })}
          </span>
          {mode === 'test' && (
            <span className="badge test-mode" data-testid="test-mode">
              {t('mode.banner')}
            </span>
          )}
        </div>
        <div className="tools">
          <label htmlFor="language" className="sr-only">
            {t('app.language')}
          </label>
          <LanguageSelect />
          <span className="muted user">{user.email}</span>
          <button
            type="button"
            className="secondary"
            onClick={() => {
              queries.clear();
              void signOut();
            }}
          >
            {t('nav.signOut')}
          </button>
        </div>
      </header>
      <nav aria-label={t('nav.main')} className="side">
        <ul>
          <li>
            <Link to="/" activeOptions={{ exact: true, includeSearch: false }}>
              {t('nav.overview')}
            </Link>
          </li>
          <li>
            <Link to="/payments" activeOptions={{ includeSearch: false }}>
              {t('nav.payments')}
            </Link>
          </li>
          <li>
            <Link to="/checkouts">{t('nav.checkouts')}</Link>
          </li>
          <li>
            <Link to="/holds">{t('nav.holds')}</Link>
          </li>
          <li>
            <ListLink to="/invoices" label={t('nav.invoices')} />
          </li>
          <li>
            <ListLink to="/clients" label={t('nav.clients')} />
          </li>
          <li>
            <ListLink to="/credit-notes" label={t('nav.creditNotes')} />
          </li>
          <li>
            <ListLink to="/recurring" label={t('nav.recurring')} />
          </li>
          <li>
            <Link to="/accounting">{t('nav.accounting')}</Link>
          </li>
          <li>
            <Link to="/tax" activeOptions={{ exact: false }}>
              {t('nav.tax')}
            </Link>
            <Link to="/data">{t('nav.dataIo')}</Link>
          </li>
          <li>
            <Link to="/settings" activeOptions={{ exact: false }}>
              {t('nav.settings')}
            </Link>
          </li>
          {can(role, 'admin') && (
            <li>
              <Link to="/audit">{t('nav.audit')}</Link>
            </li>
          )}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </>
  );
}

/** A list's link in the main navigation: it opens the list without filters, and is active whatever its filters. */
function ListLink({ to, label }: { to: '/invoices' | '/clients' | '/credit-notes' | '/recurring'; label: string }) {
  return (
    <Link to={to} search={{}} activeOptions={{ includeSearch: false }}>
      {label}
    </Link>
  );
}

export function LanguageSelect() {
  const { lang } = useI18n();
  return (
    <select
      id="language"
      value={lang}
      onChange={(e) => {
        if (isLanguage(e.target.value)) setLanguage(e.target.value);
      }}
    >
      <option value="en" lang="en">
        English
      </option>
      <option value="de" lang="de">
        Deutsch
      </option>
    </select>
  );
}
