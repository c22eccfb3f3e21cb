import { el, messageBox, show, text } from '../lib/dom';
import { moneyFormatter } from '../lib/format';
import { readMessages, translator } from '../lib/i18n';
import { PortalClient, type PortalAnswer } from './client';

/** The Main Backend's portal answers (docs/main-backend.md, "Buyer portal"). */
interface PortalDocument {
  id: string;
  type: 'invoice' | 'credit-note';
  number: string;
  status: string;
  issueDate: string | null;
  dueDate: string | null;
  currency: string;
  total: number;
  amountDue: number;
  pdfAvailable: boolean;
  eInvoiceFormats: string[];
}
interface Paged {
  total: number;
  page: number;
  limit: number;
}
interface Subscription {
  id: string;
  name: string;
  status: string;
  cadence: string;
  currency: string;
  nextChargeDate: string | null;
  effectiveAt: string | null;
}
interface Upcoming {
  id: string;
  scheduledDate: string;
  currency: string;
  baseAmount: number;
  usageAmount: number;
  taxEstimate: number;
  estimatedTotal: number;
}
interface CancelAnswer {
  subscriptionId: string;
  status: string;
  effectiveAt: string | null;
}

const DOCUMENTS_PER_PAGE = 10;
const SUBSCRIPTIONS_PER_PAGE = 100;
const EINVOICE_LABEL: Record<string, string> = { xrechnung: 'XRechnung', peppol: 'Peppol', zugferd: 'ZUGFeRD' };

const doc = document;
const lang = doc.documentElement.lang || 'en';
const messages = readMessages(doc);
const translate = translator(messages);
/** Portal texts are `portal.<key>`; shared ones (reference, errors) fall back to the plain key. */
const t = (key: string, vars?: Record<string, string | number>): string =>
  messages[`portal.${key}`] !== undefined ? translate(`portal.${key}`, vars) : translate(key, vars);
const money = moneyFormatter(lang);
const dateFormat = new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeZone: 'UTC' });
const day = (iso: string | null): string => {
  if (!iso) return '–';
  const d = new Date(iso.length === 10 ? `${iso}T00:00:00Z` : iso);
  return Number.isNaN(d.getTime()) ? iso : dateFormat.format(d);
};

const ui = {
  main: el('app'),
  account: el('account'),
  accountEmail: el('account-email'),
  logout: el<HTMLButtonElement>('logout'),
  notice: messageBox('notice'),
  signin: el('signin'),
  emailForm: el<HTMLFormElement>('email-form'),
  email: el<HTMLInputElement>('email'),
  emailSubmit: el<HTMLButtonElement>('email-submit'),
  codeForm: el<HTMLFormElement>('code-form'),
  codeSent: el('code-sent'),
  code: el<HTMLInputElement>('code'),
  codeSubmit: el<HTMLButtonElement>('code-submit'),
  otherEmail: el<HTMLButtonElement>('other-email'),
  documents: el('documents'),
  documentsTitle: el('documents-title'),
  documentsEmpty: el('documents-empty'),
  documentsTable: el('documents-table'),
  documentsBody: el('documents-body'),
  prev: el<HTMLButtonElement>('prev-page'),
  next: el<HTMLButtonElement>('next-page'),
  pageInfo: el('page-info'),
  subscriptions: el('subscriptions'),
  subscriptionsEmpty: el('subscriptions-empty'),
  subscriptionList: el('subscription-list'),
  subscriptionStatus: el('subscription-status'),
  dialog: el<HTMLDialogElement>('cancel-dialog'),
  cancelForm: el<HTMLFormElement>('cancel-form'),
  cancelText: el('cancel-text'),
  cancelReason: el<HTMLTextAreaElement>('cancel-reason'),
  cancelError: messageBox('cancel-error'),
  cancelConfirm: el<HTMLButtonElement>('cancel-confirm'),
  cancelKeep: el<HTMLButtonElement>('cancel-keep'),
};

const pageUrl = new URL(location.href);
const segments = pageUrl.pathname.split('/').filter(Boolean);
const last = decodeURIComponent(segments[segments.length - 1] ?? '');
/** `/portal/<organizationId>` signs in to that organization; `/portal/magic-link` takes a link's token. */
const organizationId = /^[0-9a-f]{24}$/.test(last) ? last : '';
const isMagicLink = last === 'magic-link';
/** `?mode=test`: the organization's test data (what its test API keys created). */
const testMode = pageUrl.searchParams.get('mode') === 'test';

const api = new PortalClient(new URL('../api/v1/', pageUrl.href), () => signedOut(t('sessionEnded')));

/** The buyer-facing sentence for an error answer. */
function errorMessage(res: PortalAnswer<unknown>): string {
  if (res.status === 0) return t('offline');
  if (res.status === 401) return t('unauthorized');
  if (res.status === 404) return t('notFound');
  if (res.status === 429) return t('rateLimited');
  if (res.status >= 500) return t('unavailable');
  return t('genericError', { message: res.error || String(res.status) });
}

/** The reference line of a message: the request's ID, for support; empty when unknown. */
const reference = (requestId: string): string => (requestId ? t('reference', { requestId }) : '');

function notice(message: string, requestId = ''): void {
  ui.notice.show(message, reference(requestId));
  ui.notice.box.focus();
}

function failed(res: PortalAnswer<unknown>): void {
  notice(errorMessage(res), res.requestId);
}

function clearNotice(): void {
  show(ui.notice.box, false);
}

function busy(on: boolean): void {
  if (on) ui.main.setAttribute('aria-busy', 'true');
  else ui.main.removeAttribute('aria-busy');
}

// ---- Sign-in ----------------------------------------------------------------------------------

let email = '';

function signedOut(message = ''): void {
  api.forget();
  show(ui.account, false);
  show(ui.documents, false);
  show(ui.subscriptions, false);
  ui.documentsBody.replaceChildren();
  ui.subscriptionList.replaceChildren();
  if (ui.dialog.open) ui.dialog.close();
  show(ui.signin, organizationId !== '');
  show(ui.emailForm);
  show(ui.codeForm, false);
  if (message) notice(message);
  else if (!organizationId) notice(t('noOrganization'));
  busy(false);
  ready();
}

/** Marks the first moment the page is usable (sign-in form or the buyer's data), for measurements. */
function ready(): void {
  if (performance.getEntriesByName('paymesh:portal-ready').length === 0) performance.mark('paymesh:portal-ready');
}

async function requestCode(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  clearNotice();
  const address = ui.email.value.trim();
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(address)) {
    ui.email.setAttribute('aria-invalid', 'true');
    notice(t('emailInvalid'));
    ui.email.focus();
    return;
  }
  ui.email.setAttribute('aria-invalid', 'false');
  ui.emailSubmit.disabled = true;
  try {
    const res = await api.post<{ message: string }>('portal/auth/request-otp', {
      email: address,
      organizationId,
      testMode,
    });
    if (!res.ok) return failed(res);
    email = address;
    // The same sentence for every address: whether a code went out is not shown here.
    show(ui.emailForm, false);
    show(ui.codeForm);
    ui.code.value = '';
    ui.code.focus();
  } finally {
    ui.emailSubmit.disabled = false;
  }
}

async function verifyCode(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  clearNotice();
  const code = ui.code.value.trim();
  if (!code) {
    ui.code.setAttribute('aria-invalid', 'true');
    notice(t('codeMissing'));
    ui.code.focus();
    return;
  }
  ui.codeSubmit.disabled = true;
  try {
    const res = await api.signIn('portal/auth/verify-otp', { email, code, organizationId, testMode });
    if (!res.ok) {
      ui.code.setAttribute('aria-invalid', 'true');
      if (res.status === 401) notice(t('codeWrong'), res.requestId);
      else failed(res);
      ui.code.focus();
      return;
    }
    ui.code.setAttribute('aria-invalid', 'false');
    await signedIn();
  } finally {
    ui.codeSubmit.disabled = false;
  }
}

async function signedIn(): Promise<void> {
  busy(true);
  show(ui.signin, false);
  clearNotice();
  const me = await api.get<{ email: string; hasSubscriptions: boolean }>('portal/session');
  if (!me.ok) {
    if (me.status !== 401) failed(me);
    busy(false);
    return;
  }
  text(ui.accountEmail, t('signedInAs', { email: me.body.email }));
  show(ui.account);
  await Promise.all([loadDocuments(1), loadSubscriptions()]);
  busy(false);
  ready();
  ui.documentsTitle.focus();
}

async function logout(): Promise<void> {
  ui.logout.disabled = true;
  try {
    const res = await api.logout();
    if (!res.ok) return failed(res);
    signedOut();
    notice(t('loggedOut'));
  } finally {
    ui.logout.disabled = false;
  }
}

// ---- Documents --------------------------------------------------------------------------------

let documentsPage = 1;

function cell(label: string, content: string | Node, className = ''): HTMLTableCellElement {
  const td = doc.createElement('td');
  td.dataset.label = label;
  if (className) td.className = className;
  if (typeof content === 'string') td.textContent = content;
  else td.append(content);
  return td;
}

function statusLabel(kind: 'document' | 'subscription', status: string): string {
  const key = `${kind}Status.${status}`;
  const got = t(key);
  return got === key ? status : got;
}

async function loadDocuments(page: number): Promise<void> {
  const res = await api.get<{ items: PortalDocument[] } & Paged>(
    `portal/documents?page=${page}&limit=${DOCUMENTS_PER_PAGE}`,
  );
  if (!res.ok) {
    if (res.status !== 401) failed(res);
    return;
  }
  const { items, total, limit } = res.body;
  documentsPage = res.body.page;
  const pages = Math.max(1, Math.ceil(total / limit));
  ui.documentsBody.replaceChildren(
    ...items.map((d) => {
      const tr = doc.createElement('tr');
      tr.dataset.documentId = d.id;
      const downloads = doc.createElement('div');
      downloads.className = 'actions';
      if (d.pdfAvailable)
        downloads.append(
          downloadButton(
            t('downloadPdf'),
            t('downloadPdfOf', { number: d.number }),
            `portal/documents/${encodeURIComponent(d.id)}/pdf?type=${d.type}`,
            'pdf',
          ),
        );
      for (const format of d.eInvoiceFormats) {
        const name = EINVOICE_LABEL[format] ?? format;
        downloads.append(
          downloadButton(
            t('downloadXml', { format: name }),
            t('downloadXmlOf', { format: name, number: d.number }),
            `portal/documents/${encodeURIComponent(d.id)}/einvoice?format=${format}`,
            `einvoice-${format}`,
          ),
        );
      }
      const kind = d.type === 'credit-note' ? t('creditNote') : t('invoice');
      tr.append(
        cell(t('number'), `${kind} ${d.number}`),
        cell(t('issueDate'), day(d.issueDate)),
        cell(t('status'), statusLabel('document', d.status)),
        cell(t('total'), money(d.total, d.currency), 'num'),
        cell(t('amountDue'), money(d.amountDue, d.currency), 'num'),
        cell(t('downloads'), downloads),
      );
      return tr;
    }),
  );
  show(ui.documentsEmpty, total === 0);
  show(ui.documentsTable, total > 0);
  text(ui.pageInfo, total > 0 ? t('pageOf', { page: documentsPage, pages }) : '');
  ui.prev.disabled = documentsPage <= 1;
  ui.next.disabled = documentsPage >= pages;
  show(ui.documents);
}

function downloadButton(label: string, accessibleName: string, path: string, kind: string): HTMLButtonElement {
  const b = doc.createElement('button');
  b.type = 'button';
  b.className = 'link';
  b.textContent = label;
  b.setAttribute('aria-label', accessibleName);
  b.dataset.download = kind;
  b.addEventListener('click', () => void download(b, path));
  return b;
}

/** Fetches the file with the session token and hands it to the browser as a download. */
async function download(button: HTMLButtonElement, path: string): Promise<void> {
  button.disabled = true;
  clearNotice();
  try {
    const res = await api.file(path);
    if (!res.ok || !res.blob) {
      if (res.status !== 401) failed(res);
      return;
    }
    const url = URL.createObjectURL(res.blob);
    const a = doc.createElement('a');
    a.href = url;
    a.download = res.filename || 'document';
    doc.body.append(a);
    a.click();
    a.remove();
    window.setTimeout(() => URL.revokeObjectURL(url), 60_000);
  } finally {
    button.disabled = false;
  }
}

// ---- Subscriptions ----------------------------------------------------------------------------

async function loadSubscriptions(): Promise<void> {
  const res = await api.get<{ subscriptions: Subscription[] } & Paged>(
    `portal/subscriptions?page=1&limit=${SUBSCRIPTIONS_PER_PAGE}`,
  );
  if (!res.ok) {
    if (res.status !== 401) failed(res);
    return;
  }
  const subs = res.body.subscriptions;
  const items = await Promise.all(
    subs.map(async (s) =>
      renderSubscription(
        s,
        await api.get<{ upcoming: Upcoming[] }>(`portal/subscriptions/${encodeURIComponent(s.id)}/upcoming?count=3`),
      ),
    ),
  );
  ui.subscriptionList.replaceChildren(...items);
  show(ui.subscriptionsEmpty, subs.length === 0);
  show(ui.subscriptions);
}

function renderSubscription(s: Subscription, upcoming: PortalAnswer<{ upcoming: Upcoming[] }>): HTMLLIElement {
  const li = doc.createElement('li');
  li.dataset.subscriptionId = s.id;
  const titleId = `sub-${s.id}-title`;
  li.setAttribute('aria-labelledby', titleId);
  const h = doc.createElement('h3');
  h.id = titleId;
  h.textContent = s.name;
  const badge = doc.createElement('span');
  badge.className = 'badge';
  const meta = doc.createElement('p');
  meta.className = 'sub-meta';
  const setStatus = (status: string, effectiveAt: string | null) => {
    badge.dataset.status = status;
    badge.textContent = statusLabel('subscription', status);
    const cadence = t(`cadence.${s.cadence}`) === `cadence.${s.cadence}` ? s.cadence : t(`cadence.${s.cadence}`);
    meta.textContent =
      status === 'cancel_requested'
        ? t('endsOn', { date: day(effectiveAt) })
        : t('nextCharge', { cadence, date: day(s.nextChargeDate) });
  };
  setStatus(s.status, s.effectiveAt);
  const head = doc.createElement('div');
  head.className = 'actions';
  head.append(h, badge);
  li.append(head, meta);

  if (upcoming.ok && upcoming.body.upcoming.length > 0) {
    const wrap = doc.createElement('div');
    wrap.className = 'table-wrap';
    // Scrolls sideways on narrow screens: reachable by keyboard, named by the subscription.
    wrap.tabIndex = 0;
    wrap.setAttribute('role', 'region');
    wrap.setAttribute('aria-labelledby', titleId);
    const table = doc.createElement('table');
    table.className = 'upcoming';
    const caption = doc.createElement('caption');
    caption.className = 'sub-meta';
    caption.textContent = t('upcoming');
    const thead = doc.createElement('thead');
    const hr = doc.createElement('tr');
    for (const [key, cls] of [
      ['date', ''],
      ['net', 'num'],
      ['taxEstimate', 'num'],
      ['estimatedTotal', 'num'],
    ] as const) {
      const th = doc.createElement('th');
      th.scope = 'col';
      th.textContent = t(key);
      if (cls) th.className = cls;
      hr.append(th);
    }
    thead.append(hr);
    const tbody = doc.createElement('tbody');
    for (const u of upcoming.body.upcoming) {
      const tr = doc.createElement('tr');
      tr.append(
        cell(t('date'), day(u.scheduledDate)),
        cell(t('net'), money(u.baseAmount + u.usageAmount, u.currency), 'num'),
        cell(t('taxEstimate'), money(u.taxEstimate, u.currency), 'num'),
        cell(t('estimatedTotal'), money(u.estimatedTotal, u.currency), 'num'),
      );
      tbody.append(tr);
    }
    table.append(caption, thead, tbody);
    wrap.append(table);
    li.append(wrap);
  } else if (!upcoming.ok && upcoming.status !== 401) {
    const p = doc.createElement('p');
    p.className = 'status';
    p.textContent =
      `${errorMessage(upcoming)} ${upcoming.requestId ? t('reference', { requestId: upcoming.requestId }) : ''}`.trim();
    li.append(p);
  }

  if (s.status === 'active') {
    const cancel = doc.createElement('button');
    cancel.type = 'button';
    cancel.className = 'secondary';
    cancel.textContent = t('cancel');
    cancel.setAttribute('aria-label', t('cancelOf', { name: s.name }));
    cancel.dataset.action = 'cancel';
    cancel.addEventListener('click', () =>
      openCancel(s, cancel, (answer) => {
        setStatus(answer.status, answer.effectiveAt);
        cancel.remove();
      }),
    );
    li.append(cancel);
  }
  return li;
}

// The cancel dialog: a native modal <dialog> (the rest of the page is inert while it is open, so
// focus stays inside; Escape closes it), labelled by its heading and described by its text.
let cancelTarget: { sub: Subscription; opener: HTMLButtonElement; done: (a: CancelAnswer) => void } | undefined;

function openCancel(sub: Subscription, opener: HTMLButtonElement, done: (a: CancelAnswer) => void): void {
  cancelTarget = { sub, opener, done };
  text(ui.cancelText, t('cancelText', { name: sub.name }));
  ui.cancelReason.value = '';
  show(ui.cancelError.box, false);
  ui.cancelConfirm.disabled = false;
  ui.dialog.showModal();
  ui.cancelReason.focus();
}

function closeCancel(): void {
  if (ui.dialog.open) ui.dialog.close();
}

ui.dialog.addEventListener('close', () => {
  const target = cancelTarget;
  cancelTarget = undefined;
  // Focus goes back to what opened the dialog (or, once canceled, to the subscriptions' status).
  if (target?.opener.isConnected) target.opener.focus();
  else ui.subscriptionStatus.focus();
});

async function confirmCancel(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  const target = cancelTarget;
  if (!target) return;
  ui.cancelConfirm.disabled = true;
  const reason = ui.cancelReason.value.trim();
  const res = await api.post<CancelAnswer>(
    `portal/subscriptions/${encodeURIComponent(target.sub.id)}/cancel`,
    reason ? { reason } : {},
  );
  if (!res.ok) {
    ui.cancelConfirm.disabled = false;
    if (res.status === 401) return;
    ui.cancelError.show(errorMessage(res), reference(res.requestId));
    return;
  }
  target.done(res.body);
  ui.subscriptionStatus.tabIndex = -1;
  text(ui.subscriptionStatus, t('canceled', { name: target.sub.name, date: day(res.body.effectiveAt) }));
  closeCancel();
  // The upcoming charges change with the cancellation: the list is read again.
  await loadSubscriptions();
}

// ---- Start ------------------------------------------------------------------------------------

ui.emailForm.addEventListener('submit', (e) => void requestCode(e));
ui.codeForm.addEventListener('submit', (e) => void verifyCode(e));
ui.otherEmail.addEventListener('click', () => {
  show(ui.codeForm, false);
  show(ui.emailForm);
  clearNotice();
  ui.email.focus();
});
ui.logout.addEventListener('click', () => void logout());
ui.prev.addEventListener('click', () => void loadDocuments(documentsPage - 1));
ui.next.addEventListener('click', () => void loadDocuments(documentsPage + 1));
ui.cancelForm.addEventListener('submit', (e) => void confirmCancel(e));
ui.cancelKeep.addEventListener('click', closeCancel);

async function start(): Promise<void> {
  if (isMagicLink) {
    // The token is in the fragment (never sent to a server by the browser); it leaves the address
    // bar and the history before anything else happens, and goes to the API in a POST body only.
    const token = new URLSearchParams(pageUrl.hash.slice(1)).get('token') ?? '';
    history.replaceState(null, '', `${pageUrl.pathname}${pageUrl.search}`);
    if (token) {
      const res = await api.signIn('portal/auth/magic-link', { token });
      if (res.ok) return signedIn();
      busy(false);
      show(ui.signin, false);
      return notice(res.status === 401 ? t('linkInvalid') : errorMessage(res), res.requestId);
    }
  }
  // A reload keeps the sign-in: the refresh cookie gives a new session token.
  if (await api.resume()) return signedIn();
  signedOut();
}

void start();
