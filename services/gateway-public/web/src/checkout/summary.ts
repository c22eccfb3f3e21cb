import { call } from '../lib/api';
import { contrastOnWhite, hexColor, percent, textOn } from '../lib/format';
import {
  base,
  doc,
  endWith,
  isTerminal,
  lang,
  money,
  show,
  t,
  text,
  ui,
  value,
  type CheckoutView,
  type TaxPreview,
} from './page';

export function applyBranding(v: CheckoutView): void {
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

export function renderItems(v: CheckoutView): void {
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

export function renderTotals(v: CheckoutView, p?: TaxPreview): void {
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

// Live tax preview: the latest address wins; older answers are dropped.
let previewSeq = 0;
let previewTimer: number | undefined;

export async function refreshTax(v: CheckoutView): Promise<void> {
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

export function scheduleTax(v: CheckoutView, delayMs = 250): void {
  window.clearTimeout(previewTimer);
  previewTimer = window.setTimeout(() => void refreshTax(v), delayMs);
}

// VAT ID feedback (vies mode only): the VIES answer for the ID as typed.
let vatSeq = 0;
let vatTimer: number | undefined;

export async function checkVatId(): Promise<void> {
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

/** The VIES check of the VAT ID as typed, once the buyer pauses. */
export function scheduleVatCheck(delayMs = 400): void {
  window.clearTimeout(vatTimer);
  vatTimer = window.setTimeout(() => void checkVatId(), delayMs);
}
