import { call, type ApiAnswer, type ApiError } from '../lib/api';
import { countryOptions } from '../lib/countries';
import {
  base,
  doc,
  endWith,
  errorMessage,
  field,
  formError,
  isTerminal,
  lang,
  notice,
  pageUrl,
  pagePath,
  sessionId,
  show,
  storageKey,
  t,
  text,
  ui,
  value,
  type CheckoutView,
} from './page';
import { applyBranding, renderItems, renderTotals, scheduleTax, scheduleVatCheck } from './summary';
import { DIRECT_DEBIT, followTransaction, readPending, storedPending, type Pending } from './result';

interface Created {
  transactionId: string;
  status: number;
  providerType?: string;
  redirectUrl?: string;
}

let view: CheckoutView | undefined;

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
  show(ui.formError.box, false);
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
  ui.country.addEventListener('change', () => scheduleTax(v, 0));
  field('postalCode').addEventListener('input', () => scheduleTax(v));
  ui.vatId.addEventListener('input', () => {
    scheduleTax(v, 400);
    if (v.checkoutSettings.vatIdValidation === 'vies') {
      scheduleVatCheck(400);
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
  scheduleTax(view, 0);
});

void start();
