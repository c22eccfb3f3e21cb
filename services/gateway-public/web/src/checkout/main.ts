import { apiBase, call, type ApiAnswer, type ApiError } from '../lib/api';
import { countryOptions } from '../lib/countries';
import { contrastOnWhite, hexColor, moneyFormatter, percent, textOn } from '../lib/format';
import { readMessages, translator } from '../lib/i18n';

/** The Main Backend's public checkout view (docs/main-backend.md). */
interface CheckoutView {
  id: string;
  currency: string;
  amount: number;
  status: string;
  lineItems: { name: string; quantity: number; unitAmount: number }[];
  providers: string[];
  branding: { logo?: string; primaryColor?: string };
  expiresAt: string;
  checkoutSettings: { vatIdValidation: string };
}

interface TaxPreview {
  taxIncluded: boolean;
  totalNet: number;
  totalTax: number;
  totalGross: number;
  taxBreakdown: { taxRate: number; taxRateCode: string; taxableBase: number; taxAmount: number }[];
}

interface StatusView {
  status: number;
  amount: number;
  currency: string;
  returnUrl?: string;
  cancelUrl?: string;
}

interface Created {
  transactionId: string;
  status: number;
  providerType?: string;
  redirectUrl?: string;
}

/** What the page remembers across the trip to the provider (same tab, same origin). */
interface Pending {
  transactionId: string;
  providerType: string;
}

const BLOCK_CODES = new Set(['CHECKOUT_BLOCKED_BY_DISPUTE', 'CHECKOUT_BLOCKED_BY_CUSTOMER_HOLD']);
const DIRECT_DEBIT = 'provider_c';
/** Transaction statuses after which nothing changes for the buyer: completed, failed, canceled, refunded, disputed. */
const FINAL = new Set([1, 2, -2, 3, 4]);

const doc = document;
const lang = doc.documentElement.lang || 'en';
const t = translator(readMessages(doc));
const money = moneyFormatter(lang);

function el<T extends HTMLElement = HTMLElement>(id: string): T {
  const found = doc.getElementById(id);
  if (!found) throw new Error(`page element #${id} is missing`);
  return found as T;
}

const ui = {
  main: el('app'),
  logo: el<HTMLImageElement>('logo'),
  notice: el('notice'),
  noticeText: el('notice-text'),
  noticeRef: el('notice-ref'),
  summary: el('summary'),
  items: el('items'),
  net: el('net'),
  taxLabel: el('tax-label'),
  tax: el('tax'),
  total: el('total'),
  taxNote: el('tax-note'),
  taxStatus: el('tax-status'),
  form: el<HTMLFormElement>('pay-form'),
  country: el<HTMLSelectElement>('country'),
  vatRow: el('vat-row'),
  vatId: el<HTMLInputElement>('vatId'),
  vatStatus: el('vat-status'),
  providers: el('provider-list'),
  formError: el('form-error'),
  formErrorText: el('form-error-text'),
  formErrorRef: el('form-error-ref'),
  payButton: el<HTMLButtonElement>('pay-button'),
  result: el('result'),
  resultTitle: el('result-title'),
  resultText: el('result-text'),
  resultActions: el('result-actions'),
};

const pageUrl = new URL(location.href);
const base = apiBase(pageUrl.href);
const sessionId = decodeURIComponent(pageUrl.pathname.split('/').filter(Boolean).pop() ?? '');
const storageKey = `paymesh:checkout:${sessionId}`;
/** The page's own address without provider parameters (keeps an explicit `lang`). */
function pagePath(transactionId?: string): string {
  const q = new URLSearchParams();
  const asked = pageUrl.searchParams.get('lang');
  if (asked) q.set('lang', asked);
  if (transactionId !== undefined) q.set('transactionId', transactionId);
  const query = q.toString();
  return query ? `${pageUrl.pathname}?${query}` : pageUrl.pathname;
}

let view: CheckoutView | undefined;

function show(node: HTMLElement, visible = true): void {
  node.hidden = !visible;
}

function text(node: HTMLElement, value: string): void {
  node.textContent = value;
}

/** A page-level message (expired, paid, blocked, errors); `requestId` is shown when known. */
function notice(message: string, requestId = ''): void {
  text(ui.noticeText, message);
  text(ui.noticeRef, requestId ? t('reference', { requestId }) : '');
  show(ui.noticeRef, !!requestId);
  show(ui.notice);
  ui.notice.focus();
}

function formError(message: string, requestId = ''): void {
  text(ui.formErrorText, message);
  text(ui.formErrorRef, requestId ? t('reference', { requestId }) : '');
  show(ui.formErrorRef, !!requestId);
  show(ui.formError);
  ui.formError.focus();
}

/** The buyer-facing sentence for an error answer. */
function errorMessage(res: ApiAnswer<ApiError>): string {
  const code = res.body.code ?? '';
  if (BLOCK_CODES.has(code)) return t('blocked');
  if (code === 'CHECKOUT_RESTRICTED_BY_CUSTOMER_HOLD') return t('restricted');
  if (code === 'CHECKOUT_EXPIRED') return t('expired');
  if (code === 'CHECKOUT_COMPLETED' || code === 'CHECKOUT_ALREADY_PAID') return t('completed');
  if (code.startsWith('LICENSE_')) return t('merchantUnavailable');
  if (res.status === 404) return t('notFound');
  if (res.status === 403) return t('forbidden');
  if (res.status === 429) return t('rateLimited');
  if (res.status >= 500) return t('unavailable');
  return t('genericError', { message: res.body.error ?? String(res.status) });
}

/** Errors that end the checkout for this buyer: the form goes away, the message stays. */
function isTerminal(res: ApiAnswer<ApiError>): boolean {
  const code = res.body.code ?? '';
  return (
    BLOCK_CODES.has(code) ||
    code === 'CHECKOUT_EXPIRED' ||
    code === 'CHECKOUT_COMPLETED' ||
    code === 'CHECKOUT_ALREADY_PAID'
  );
}

function applyBranding(v: CheckoutView): void {
  const color = hexColor(v.branding.primaryColor);
  if (color) {
    // CSSOM, not a style attribute: the page's CSP allows no inline styles.
    doc.documentElement.style.setProperty('--brand', color);
    doc.documentElement.style.setProperty('--brand-text', textOn(color));
    // Links and focus rings use the brand colour only where it stays readable on white.
    if (contrastOnWhite(color) >= 4.5) doc.documentElement.style.setProperty('--accent', color);
  }
  const logo = v.branding.logo;
  if (logo && /^https:\/\//i.test(logo)) {
    ui.logo.src = logo;
    show(ui.logo);
  }
}

function renderItems(v: CheckoutView): void {
  ui.items.replaceChildren(
    ...v.lineItems.map((item) => {
      const li = doc.createElement('li');
      const name = doc.createElement('span');
      name.className = 'item-name';
      name.textContent = item.name;
      const qty = doc.createElement('span');
      qty.className = 'item-qty';
      qty.textContent = t('quantityTimes', { quantity: item.quantity, unit: money(item.unitAmount, v.currency) });
      const sum = doc.createElement('span');
      sum.className = 'item-sum';
      sum.textContent = money(item.unitAmount * item.quantity, v.currency);
      li.append(name, qty, sum);
      return li;
    }),
  );
}

let charged = 0;

function renderTotals(v: CheckoutView, p?: TaxPreview): void {
  if (!p) {
    text(ui.net, '–');
    text(ui.taxLabel, t('tax'));
    text(ui.tax, '–');
    text(ui.total, money(v.amount, v.currency));
    charged = v.amount;
    show(ui.taxNote, false);
  } else {
    text(ui.net, money(p.totalNet, v.currency));
    const rates = [
      ...new Set(p.taxBreakdown.filter((b) => b.taxAmount !== 0 || b.taxRate !== 0).map((b) => b.taxRate)),
    ];
    text(ui.taxLabel, rates.length === 1 ? t('taxRate', { rate: percent(lang, rates[0] ?? 0) }) : t('tax'));
    text(ui.tax, money(p.totalTax, v.currency));
    text(ui.total, money(p.totalGross, v.currency));
    charged = p.totalGross;
    const reverse = p.taxBreakdown.some((b) => b.taxRateCode === 'REVERSE_CHARGE');
    text(ui.taxNote, reverse ? t('reverseCharge') : p.taxIncluded && p.totalTax > 0 ? t('taxIncluded') : '');
    ui.taxNote.dataset.kind = reverse ? 'reverse-charge' : '';
    show(ui.taxNote, ui.taxNote.textContent !== '');
  }
  text(ui.payButton, charged > 0 ? t('pay', { amount: money(charged, v.currency) }) : t('payNoAmount'));
}

function field(name: string): HTMLInputElement | HTMLSelectElement {
  const f = ui.form.elements.namedItem(name);
  if (!(f instanceof HTMLInputElement || f instanceof HTMLSelectElement))
    throw new Error(`form field ${name} is missing`);
  return f;
}

const value = (name: string): string => field(name).value.trim();

// Live tax preview: the latest address wins; older answers are dropped.
let previewSeq = 0;
let previewTimer: number | undefined;

async function refreshTax(): Promise<void> {
  const v = view;
  if (!v) return;
  const country = value('country');
  const seq = ++previewSeq;
  if (!country) {
    renderTotals(v);
    text(ui.taxStatus, t('taxPending'));
    return;
  }
  ui.summary.setAttribute('aria-busy', 'true');
  text(ui.taxStatus, t('taxUpdating'));
  const vatId = v.checkoutSettings.vatIdValidation === 'none' ? '' : value('vatId');
  const billingAddress = {
    country,
    ...(value('postalCode') ? { postcode: value('postalCode') } : {}),
    ...(vatId ? { vatId } : {}),
  };
  try {
    const res = await call<TaxPreview>(base, 'POST', `checkouts/${encodeURIComponent(v.id)}/tax-preview`, {
      billingAddress,
    });
    if (seq !== previewSeq) return;
    if (res.ok) {
      renderTotals(v, res.body);
      text(ui.taxStatus, '');
    } else {
      renderTotals(v);
      text(ui.taxStatus, res.status === 400 ? '' : t('taxFailed'));
      if (isTerminal(res)) endWith(res);
    }
  } catch {
    if (seq === previewSeq) text(ui.taxStatus, t('taxFailed'));
  } finally {
    if (seq === previewSeq) ui.summary.removeAttribute('aria-busy');
  }
}

function scheduleTax(delayMs = 250): void {
  window.clearTimeout(previewTimer);
  previewTimer = window.setTimeout(() => void refreshTax(), delayMs);
}

// VAT ID feedback (vies mode only): the VIES answer for the ID as typed.
let vatSeq = 0;
let vatTimer: number | undefined;

async function checkVatId(): Promise<void> {
  const vatId = value('vatId');
  const seq = ++vatSeq;
  if (vatId.replace(/[\s.-]/g, '').length < 4) {
    text(ui.vatStatus, '');
    return;
  }
  text(ui.vatStatus, t('vatChecking'));
  try {
    const res = await call<{ valid: boolean; companyName: string }>(base, 'POST', 'vat/validate', { vatId });
    if (seq !== vatSeq) return;
    if (res.ok) {
      const name = res.body.companyName;
      text(ui.vatStatus, res.body.valid ? (name ? t('vatValid', { name }) : t('vatValidNoName')) : t('vatInvalid'));
      ui.vatStatus.dataset.state = res.body.valid ? 'valid' : 'invalid';
    } else {
      text(ui.vatStatus, res.status === 400 ? t('vatInvalid') : t('vatUnavailable'));
      ui.vatStatus.dataset.state = 'invalid';
    }
  } catch {
    if (seq === vatSeq) text(ui.vatStatus, t('vatUnavailable'));
  }
}

function renderProviders(v: CheckoutView): void {
  if (v.providers.length === 0) {
    const p = doc.createElement('p');
    p.textContent = t('noProviders');
    ui.providers.replaceChildren(p);
    ui.payButton.disabled = true;
    return;
  }
  ui.providers.replaceChildren(
    ...v.providers.map((type, i) => {
      const label = doc.createElement('label');
      label.className = 'provider';
      const input = doc.createElement('input');
      input.type = 'radio';
      input.name = 'provider';
      input.value = type;
      input.required = true;
      if (i === 0) input.checked = true;
      const name = doc.createElement('span');
      const key = `provider.${type}`;
      name.textContent = t(key) === key ? t('provider.other') : t(key);
      label.append(input, name);
      return label;
    }),
  );
}

function fillCountries(): void {
  const options = countryOptions(lang).map(({ code, name }) => {
    const o = doc.createElement('option');
    o.value = code;
    o.textContent = name;
    return o;
  });
  ui.country.append(...options);
}

function endWith(res: ApiAnswer<ApiError>): void {
  show(ui.form, false);
  notice(errorMessage(res), res.requestId);
}

function missingFields(): string[] {
  const labels: string[] = [];
  for (const name of ['name', 'email', 'country']) {
    const f = field(name);
    const empty = f.value.trim() === '';
    f.setAttribute('aria-invalid', empty ? 'true' : 'false');
    if (empty) labels.push(doc.querySelector(`label[for="${name}"] .label-text`)?.textContent ?? name);
  }
  return labels;
}

async function submit(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  const v = view;
  if (!v) return;
  show(ui.formError, false);
  const missing = missingFields();
  if (missing.length) {
    formError(t('fieldRequired', { fields: missing.join(', ') }));
    return;
  }
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value('email'))) {
    field('email').setAttribute('aria-invalid', 'true');
    formError(t('emailInvalid'));
    return;
  }
  const chosen = ui.form.querySelector<HTMLInputElement>('input[name="provider"]:checked');
  if (!chosen) return;
  const providerId = chosen.value;
  const billingAddress = {
    name: value('name'),
    email: value('email'),
    line1: value('line1'),
    city: value('city'),
    postalCode: value('postalCode'),
    country: value('country'),
    ...(v.checkoutSettings.vatIdValidation !== 'none' && value('vatId') ? { vatId: value('vatId') } : {}),
  };
  ui.payButton.disabled = true;
  ui.main.setAttribute('aria-busy', 'true');
  text(ui.payButton, t('working'));
  try {
    // The handoff stores the choice and checks it (disputes, holds, expiry) before any provider is contacted.
    const handoff = await call<{ handoffToken: string }>(
      base,
      'POST',
      `checkouts/${encodeURIComponent(v.id)}/handoff`,
      { providerId, billingAddress },
    );
    if (!handoff.ok) return failSubmit(handoff);
    const create = () =>
      providerId === DIRECT_DEBIT
        ? call<Created>(base, 'POST', 'billing-requests/create', { sessionPublicId: v.id, billingAddress })
        : call<Created>(base, 'POST', 'transactions/create', { sessionPublicId: v.id, providerId, billingAddress });
    let created = await create();
    const earlier = storedPending();
    if (!created.ok && created.body.code === 'TRANSACTION_ALREADY_OPEN' && earlier) {
      // The buyer came back from a provider (back button) and picked another method: the payment
      // started there is canceled first (only this tab knows it), then the new one starts.
      const canceled = await call(base, 'POST', `transactions/${encodeURIComponent(earlier.transactionId)}/cancel`, {
        sessionPublicId: v.id,
      });
      if (canceled.ok) {
        sessionStorage.removeItem(storageKey);
        created = await create();
      }
    }
    if (!created.ok) return failSubmit(created);
    const pending: Pending = {
      transactionId: created.body.transactionId,
      providerType: created.body.providerType ?? providerId,
    };
    sessionStorage.setItem(storageKey, JSON.stringify(pending));
    if (created.body.redirectUrl && /^https?:\/\//i.test(created.body.redirectUrl)) {
      location.assign(created.body.redirectUrl);
      return;
    }
    await followTransaction(pending);
  } catch {
    failSubmit({ status: 503, ok: false, body: {}, requestId: '' });
  }
}

function failSubmit(res: ApiAnswer<ApiError>): void {
  ui.main.removeAttribute('aria-busy');
  ui.payButton.disabled = false;
  renderTotals(view as CheckoutView);
  if (isTerminal(res)) endWith(res);
  else formError(errorMessage(res), res.requestId);
}

/** The transaction this tab started for the session, if any. */
function storedPending(): Pending | undefined {
  try {
    const stored = JSON.parse(sessionStorage.getItem(storageKey) ?? 'null') as Pending | null;
    return stored && typeof stored.transactionId === 'string' && /^[0-9a-f]{24}$/.test(stored.transactionId)
      ? stored
      : undefined;
  } catch {
    return undefined;
  }
}

function readPending(transactionId: string): Pending {
  const stored = storedPending();
  // Nothing remembered (another tab, a link from the provider): the status view alone decides.
  return stored && stored.transactionId === transactionId ? stored : { transactionId, providerType: '' };
}

function resultView(title: string, body: string): void {
  show(ui.form, false);
  show(ui.notice, false);
  text(ui.resultTitle, title);
  text(ui.resultText, body);
  ui.resultActions.replaceChildren();
  show(ui.result);
  ui.resultTitle.focus();
}

function actionLink(label: string, href: string): HTMLAnchorElement {
  const a = doc.createElement('a');
  a.href = href;
  a.className = 'button secondary';
  a.textContent = label;
  return a;
}

function actionButton(label: string, onClick: () => void): HTMLButtonElement {
  const b = doc.createElement('button');
  b.type = 'button';
  b.textContent = label;
  b.addEventListener('click', onClick);
  return b;
}

/** Back to the form for another attempt (a failed or canceled payment leaves the session open). */
function retry(): void {
  sessionStorage.removeItem(storageKey);
  location.replace(pagePath());
}

const sleep = (ms: number) => new Promise<void>((resolve) => window.setTimeout(resolve, ms));

/**
 * After the provider: polls the status view until the status is final, then follows the
 * merchant's returnUrl (paid) or cancelUrl (canceled). A failed payment offers another attempt.
 * A direct debit stays pending for days: once the buyer has set it up, it is reported as
 * submitted (mark-pending) and the buyer goes back to the merchant.
 */
async function followTransaction(pending: Pending): Promise<void> {
  const id = pending.transactionId;
  resultView(t('result.waiting'), '');
  ui.main.setAttribute('aria-busy', 'true');
  const started = Date.now();
  let delay = 500;
  let slowShown = false;
  for (;;) {
    const res = await call<StatusView>(base, 'GET', `transactions/${encodeURIComponent(id)}/status`).catch(
      () => undefined,
    );
    if (res && !res.ok && res.status === 404) {
      ui.main.removeAttribute('aria-busy');
      resultView(t('notFound'), '');
      return;
    }
    const s = res?.ok ? res.body : undefined;
    if (s) showCharged(s);
    if (s && FINAL.has(s.status)) return finish(s);
    if (s && s.status === 0 && pending.providerType === DIRECT_DEBIT) {
      await call(base, 'POST', `transactions/${encodeURIComponent(id)}/mark-pending`, {
        sessionPublicId: sessionId,
      }).catch(() => undefined);
      ui.main.removeAttribute('aria-busy');
      resultView(t('result.submitted'), '');
      if (s.returnUrl) leave(s.returnUrl);
      return;
    }
    if (!slowShown && Date.now() - started > 20_000) {
      slowShown = true;
      text(ui.resultText, t('result.slow'));
      ui.resultActions.replaceChildren(
        actionButton(t('result.cancel'), () => {
          void call(base, 'POST', `transactions/${encodeURIComponent(id)}/cancel`, { sessionPublicId: sessionId });
        }),
      );
    }
    await sleep(delay);
    delay = Math.min(delay * 1.5, 5_000);
  }
}

/** After the provider: the amount of the transaction (what was charged), not the session's figures. */
function showCharged(s: StatusView): void {
  ui.summary.classList.add('settled');
  text(ui.total, money(s.amount, s.currency));
}

function leave(url: string): void {
  if (!/^https?:\/\//i.test(url)) return;
  text(ui.resultText, t('result.redirecting'));
  ui.resultActions.replaceChildren(actionLink(t('result.back'), url));
  location.replace(url);
}

function finish(s: StatusView): void {
  ui.main.removeAttribute('aria-busy');
  sessionStorage.removeItem(storageKey);
  if (s.status === 1 || s.status === 3 || s.status === 4) {
    resultView(t('result.completed'), '');
    if (s.returnUrl) leave(s.returnUrl);
    return;
  }
  if (s.status === -2) {
    resultView(t('result.canceled'), '');
    if (s.cancelUrl) leave(s.cancelUrl);
    else ui.resultActions.replaceChildren(actionButton(t('result.retry'), retry));
    return;
  }
  resultView(t('result.failed'), '');
  ui.resultActions.replaceChildren(
    actionButton(t('result.retry'), retry),
    ...(s.cancelUrl ? [actionLink(t('result.back'), s.cancelUrl)] : []),
  );
}

async function start(): Promise<void> {
  const returning = pageUrl.searchParams.get('transactionId');
  if (returning !== null) {
    // Provider result parameters are not needed (the status view decides) and must not linger in the address bar.
    history.replaceState(null, '', pagePath(returning));
  }
  let res: ApiAnswer<CheckoutView & ApiError>;
  try {
    res = await call<CheckoutView>(base, 'GET', `checkouts/${encodeURIComponent(sessionId)}`);
  } catch {
    ui.main.removeAttribute('aria-busy');
    notice(t('unavailable'));
    return;
  }
  ui.main.removeAttribute('aria-busy');
  if (!res.ok) {
    notice(errorMessage(res), res.requestId);
    return;
  }
  const v = res.body;
  view = v;
  applyBranding(v);
  renderItems(v);
  renderTotals(v);
  show(ui.summary);
  if (returning !== null && /^[0-9a-f]{24}$/.test(returning)) {
    await followTransaction(readPending(returning));
    return;
  }
  if (v.status === 'expired') return notice(t('expired'));
  if (v.status === 'completed') return notice(t('completed'));
  fillCountries();
  show(ui.vatRow, v.checkoutSettings.vatIdValidation !== 'none');
  renderProviders(v);
  text(ui.taxStatus, t('taxPending'));
  show(ui.form);
  ui.form.addEventListener('submit', (e) => void submit(e));
  ui.country.addEventListener('change', () => scheduleTax(0));
  field('postalCode').addEventListener('input', () => scheduleTax());
  ui.vatId.addEventListener('input', () => {
    scheduleTax(400);
    if (v.checkoutSettings.vatIdValidation === 'vies') {
      window.clearTimeout(vatTimer);
      vatTimer = window.setTimeout(() => void checkVatId(), 400);
    }
  });
  field('name').focus();
  // When the buyer can start typing (read by test/bench/hosted-page.mjs).
  performance.mark('paymesh:checkout-ready');
}

// Back from the provider with the browser's back button: the page comes from the back/forward
// cache as it was left (button disabled, "sending you…"); make it usable again.
window.addEventListener('pageshow', (event) => {
  if (!event.persisted || !view || ui.form.hidden) return;
  ui.main.removeAttribute('aria-busy');
  ui.payButton.disabled = false;
  renderTotals(view);
  scheduleTax(0);
});

void start();
