import { lazy, Suspense, type ComponentType } from 'react';
import { createRootRoute, createRoute, createRouter, lazyRouteComponent, Navigate } from '@tanstack/react-router';
import type { RouteComponent } from '@tanstack/react-router';
import { Layout } from './layout';
import { Audit } from './screens/Audit';
import { Checkouts } from './screens/Checkouts';
import { Holds } from './screens/Holds';
import { Overview } from './screens/Overview';
import { Payments } from './screens/Payments';
import { Settings } from './screens/Settings';
import { ApiKeys } from './screens/settings/ApiKeys';
import { Domains } from './screens/settings/Domains';
import { Providers } from './screens/settings/Providers';
import { Sites, SiteScreen } from './screens/settings/Sites';
import { Transaction } from './screens/Transaction';
import { clientsSearch, invoicesSearch, newInvoiceSearch, overviewSearch, paymentsSearch } from './search';
import { creditNotesSearch, newScheduleSearch, recurringSearch } from './search';
import type { ClientsSearch, CreditNotesSearch, InvoicesSearch, PaymentsSearch, RecurringSearch } from './search';
import { Loading } from './ui';

/**
 * A screen of a module loaded on first use (kept out of the first load's JavaScript), shown with
 * the loading line until its code is in.
 */
function lazyScreen<P extends object>(load: () => Promise<ComponentType<P>>) {
  const Screen = lazy(async () => ({ default: await load() }));
  return function LazyScreen(props: P) {
    return (
      <Suspense fallback={<Loading />}>
        <Screen {...props} />
      </Suspense>
    );
  };
}

// The invoicing screens load on first use.
const invoicing = () => import('./screens/Invoices');
const Invoices = lazyScreen(() => invoicing().then((m) => m.Invoices));
const NewInvoice = lazyScreen(() => invoicing().then((m) => m.NewInvoice));
const InvoiceScreen = lazyScreen(() => invoicing().then((m) => m.InvoiceScreen));
const clientScreens = () => import('./screens/Clients');
const Clients = lazyScreen(() => clientScreens().then((m) => m.Clients));
const ClientScreen = lazyScreen(() => clientScreens().then((m) => m.ClientScreen));

const root = createRootRoute({ component: Layout, notFoundComponent: () => <Navigate to="/" /> });

/** A screen of the signed-in layout at `path`. */
function screen<TPath extends string>(path: TPath, component: RouteComponent) {
  return createRoute({ getParentRoute: () => root, path, component });
}

/** A screen at `path` with its search parameters (read from the address by `validateSearch`). */
function searchRoute<TPath extends string, S>(
  path: TPath,
  validateSearch: (search: Record<string, unknown>) => S,
  component: RouteComponent,
) {
  return createRoute({ getParentRoute: () => root, path, validateSearch, component });
}

/** A screen at `path` whose module loads when it is first opened (kept out of the first load's JavaScript). */
function lazyRoute<TPath extends string, M extends Record<string, unknown>>(
  path: TPath,
  load: () => Promise<M>,
  name: keyof M & string,
) {
  return screen(path, lazyRouteComponent(load, name));
}

/**
 * The route component of a list whose filters and page are its search: a new search starts a new
 * screen (its filter form starts from the search).
 */
function searchScreen<S>(useSearch: () => S, Screen: ComponentType<{ search: S }>) {
  return function SearchRoute() {
    const search = useSearch();
    return <Screen key={JSON.stringify(search)} search={search} />;
  };
}

/**
 * The route component of one record's screen, its id from the address; `keyed`: another id starts
 * a new screen (its forms and open panels do not carry over).
 */
function idScreen(useId: () => string, Screen: ComponentType<{ id: string }>, keyed = false) {
  return function IdRoute() {
    const id = useId();
    return <Screen key={keyed ? id : undefined} id={id} />;
  };
}

const overview = searchRoute('/', overviewSearch, function OverviewRoute() {
  return <Overview search={overview.useSearch()} />;
});
const payments = searchRoute(
  '/payments',
  paymentsSearch,
  searchScreen((): PaymentsSearch => payments.useSearch(), Payments),
);
const transaction = screen(
  '/payments/$id',
  idScreen((): string => transaction.useParams().id, Transaction),
);
const checkouts = screen('/checkouts', Checkouts);
const holds = screen('/holds', Holds);
const settings = screen('/settings', Settings);
const audit = screen('/audit', Audit);
const accounting = lazyRoute('/accounting', () => import('./screens/Accounting'), 'Accounting');
const tax = lazyRoute('/tax', () => import('./screens/Tax'), 'Tax');
const taxReports = lazyRoute('/tax/reports', () => import('./screens/TaxReports'), 'TaxReports');
const taxRecords = lazyRoute('/tax/records', () => import('./screens/TaxRecords'), 'TaxRecords');
const sites = screen('/settings/sites', Sites);
const site = screen(
  '/settings/sites/$id',
  idScreen((): string => site.useParams().id, SiteScreen),
);
const domains = screen('/settings/domains', Domains);
const providers = screen('/settings/providers', Providers);
const apiKeys = screen('/settings/api-keys', ApiKeys);

const invoices = searchRoute(
  '/invoices',
  invoicesSearch,
  searchScreen((): InvoicesSearch => invoices.useSearch(), Invoices),
);
const newInvoice = searchRoute('/invoices/new', newInvoiceSearch, function NewInvoiceRoute() {
  return <NewInvoice clientId={newInvoice.useSearch().clientId} />;
});
const invoice = screen(
  '/invoices/$id',
  idScreen((): string => invoice.useParams().id, InvoiceScreen),
);
const clients = searchRoute(
  '/clients',
  clientsSearch,
  searchScreen((): ClientsSearch => clients.useSearch(), Clients),
);
const client = screen(
  '/clients/$id',
  idScreen((): string => client.useParams().id, ClientScreen, true),
);

// Recurring schedules and credit notes load on first use too.
const recurringScreens = () => import('./screens/Recurring');
const RecurringSchedules = lazyScreen(() => recurringScreens().then((m) => m.RecurringSchedules));
const NewSchedule = lazyScreen(() => recurringScreens().then((m) => m.NewSchedule));
const ScheduleScreen = lazyScreen(() => recurringScreens().then((m) => m.ScheduleScreen));
const creditNoteScreens = () => import('./screens/CreditNotes');
const CreditNotes = lazyScreen(() => creditNoteScreens().then((m) => m.CreditNotes));
const CreditNoteScreen = lazyScreen(() => creditNoteScreens().then((m) => m.CreditNoteScreen));

const recurring = searchRoute(
  '/recurring',
  recurringSearch,
  searchScreen((): RecurringSearch => recurring.useSearch(), RecurringSchedules),
);
const newSchedule = searchRoute('/recurring/new', newScheduleSearch, function NewScheduleRoute() {
  return <NewSchedule invoiceId={newSchedule.useSearch().invoiceId} />;
});
const schedule = screen(
  '/recurring/$id',
  idScreen((): string => schedule.useParams().id, ScheduleScreen, true),
);
const creditNotes = searchRoute(
  '/credit-notes',
  creditNotesSearch,
  searchScreen((): CreditNotesSearch => creditNotes.useSearch(), CreditNotes),
);
const creditNote = screen(
  '/credit-notes/$id',
  idScreen((): string => creditNote.useParams().id, CreditNoteScreen, true),
);
const dataIo = lazyRoute('/data', () => import('./screens/DataIo'), 'DataIo');
const invoicingSettings = lazyRoute(
  '/settings/invoicing',
  () => import('./screens/settings/Invoicing'),
  'InvoicingSettingsScreen',
);

const routeTree = root.addChildren([
  overview,
  payments,
  transaction,
  checkouts,
  holds,
  settings,
  sites,
  site,
  domains,
  providers,
  apiKeys,
  audit,
  invoices,
  newInvoice,
  invoice,
  clients,
  client,
  accounting,
  recurring,
  newSchedule,
  schedule,
  creditNotes,
  creditNote,
  tax,
  taxReports,
  taxRecords,
  dataIo,
  invoicingSettings,
]);

/** The screens of a signed-in member, under /app. */
export function makeRouter() {
  return createRouter({ routeTree, basepath: '/app', defaultPreload: false, scrollRestoration: true });
}

declare module '@tanstack/react-router' {
  interface Register {
    router: ReturnType<typeof makeRouter>;
  }
}
