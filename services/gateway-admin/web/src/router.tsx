import { lazy, Suspense, type ComponentType } from 'react';
import { createRootRoute, createRoute, createRouter, lazyRouteComponent, Navigate } from '@tanstack/react-router';
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

const overview = createRoute({
  getParentRoute: () => root,
  path: '/',
  validateSearch: overviewSearch,
  component: function OverviewRoute() {
    return <Overview search={overview.useSearch()} />;
  },
});

const payments = createRoute({
  getParentRoute: () => root,
  path: '/payments',
  validateSearch: paymentsSearch,
  component: function PaymentsRoute() {
    const search = payments.useSearch();
    // A new filter set starts a new form.
    return <Payments key={JSON.stringify(search)} search={search} />;
  },
});

const transaction = createRoute({
  getParentRoute: () => root,
  path: '/payments/$id',
  component: function TransactionRoute() {
    return <Transaction id={transaction.useParams().id} />;
  },
});

const checkouts = createRoute({ getParentRoute: () => root, path: '/checkouts', component: Checkouts });
const holds = createRoute({ getParentRoute: () => root, path: '/holds', component: Holds });
const settings = createRoute({ getParentRoute: () => root, path: '/settings', component: Settings });
const audit = createRoute({ getParentRoute: () => root, path: '/audit', component: Audit });
// Loaded when first opened: the first load stays within its budget.
const accounting = createRoute({
  getParentRoute: () => root,
  path: '/accounting',
  component: lazyRouteComponent(() => import('./screens/Accounting'), 'Accounting'),
});

// The tax screens load when first opened.
const tax = createRoute({
  getParentRoute: () => root,
  path: '/tax',
  component: lazyRouteComponent(() => import('./screens/Tax'), 'Tax'),
});
const taxReports = createRoute({
  getParentRoute: () => root,
  path: '/tax/reports',
  component: lazyRouteComponent(() => import('./screens/TaxReports'), 'TaxReports'),
});
const taxRecords = createRoute({
  getParentRoute: () => root,
  path: '/tax/records',
  component: lazyRouteComponent(() => import('./screens/TaxRecords'), 'TaxRecords'),
});

const sites = createRoute({ getParentRoute: () => root, path: '/settings/sites', component: Sites });
const site = createRoute({
  getParentRoute: () => root,
  path: '/settings/sites/$id',
  component: function SiteRoute() {
    return <SiteScreen id={site.useParams().id} />;
  },
});
const domains = createRoute({ getParentRoute: () => root, path: '/settings/domains', component: Domains });
const providers = createRoute({ getParentRoute: () => root, path: '/settings/providers', component: Providers });
const apiKeys = createRoute({ getParentRoute: () => root, path: '/settings/api-keys', component: ApiKeys });

const invoices = createRoute({
  getParentRoute: () => root,
  path: '/invoices',
  validateSearch: invoicesSearch,
  component: function InvoicesRoute() {
    const search = invoices.useSearch();
    return <Invoices key={JSON.stringify(search)} search={search} />;
  },
});
const newInvoice = createRoute({
  getParentRoute: () => root,
  path: '/invoices/new',
  validateSearch: newInvoiceSearch,
  component: function NewInvoiceRoute() {
    return <NewInvoice clientId={newInvoice.useSearch().clientId} />;
  },
});
const invoice = createRoute({
  getParentRoute: () => root,
  path: '/invoices/$id',
  component: function InvoiceRoute() {
    return <InvoiceScreen id={invoice.useParams().id} />;
  },
});
const clients = createRoute({
  getParentRoute: () => root,
  path: '/clients',
  validateSearch: clientsSearch,
  component: function ClientsRoute() {
    const search = clients.useSearch();
    return <Clients key={JSON.stringify(search)} search={search} />;
  },
});
const client = createRoute({
  getParentRoute: () => root,
  path: '/clients/$id',
  component: function ClientRoute() {
    const { id } = client.useParams();
    return <ClientScreen key={id} id={id} />;
  },
});

// Recurring schedules and credit notes load on first use too.
const recurringScreens = () => import('./screens/Recurring');
const RecurringSchedules = lazyScreen(() => recurringScreens().then((m) => m.RecurringSchedules));
const NewSchedule = lazyScreen(() => recurringScreens().then((m) => m.NewSchedule));
const ScheduleScreen = lazyScreen(() => recurringScreens().then((m) => m.ScheduleScreen));
const creditNoteScreens = () => import('./screens/CreditNotes');
const CreditNotes = lazyScreen(() => creditNoteScreens().then((m) => m.CreditNotes));
const CreditNoteScreen = lazyScreen(() => creditNoteScreens().then((m) => m.CreditNoteScreen));

const recurring = createRoute({
  getParentRoute: () => root,
  path: '/recurring',
  validateSearch: recurringSearch,
  component: function RecurringRoute() {
    const search = recurring.useSearch();
    return <RecurringSchedules key={JSON.stringify(search)} search={search} />;
  },
});
const newSchedule = createRoute({
  getParentRoute: () => root,
  path: '/recurring/new',
  validateSearch: newScheduleSearch,
  component: function NewScheduleRoute() {
    return <NewSchedule invoiceId={newSchedule.useSearch().invoiceId} />;
  },
});
const schedule = createRoute({
  getParentRoute: () => root,
  path: '/recurring/$id',
  component: function ScheduleRoute() {
    const { id } = schedule.useParams();
    return <ScheduleScreen key={id} id={id} />;
  },
});
const creditNotes = createRoute({
  getParentRoute: () => root,
  path: '/credit-notes',
  validateSearch: creditNotesSearch,
  component: function CreditNotesRoute() {
    const search = creditNotes.useSearch();
    return <CreditNotes key={JSON.stringify(search)} search={search} />;
  },
});
const creditNote = createRoute({
  getParentRoute: () => root,
  path: '/credit-notes/$id',
  component: function CreditNoteRoute() {
    const { id } = creditNote.useParams();
    return <CreditNoteScreen key={id} id={id} />;
  },
});
// Data import/export and the invoicing settings load on first use.
const dataIo = createRoute({
  getParentRoute: () => root,
  path: '/data',
  component: lazyRouteComponent(() => import('./screens/DataIo'), 'DataIo'),
});
const invoicingSettings = createRoute({
  getParentRoute: () => root,
  path: '/settings/invoicing',
  component: lazyRouteComponent(() => import('./screens/settings/Invoicing'), 'InvoicingSettingsScreen'),
});

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
