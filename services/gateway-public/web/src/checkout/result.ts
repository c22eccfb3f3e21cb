import { call } from '../lib/api';
import { base, doc, money, pagePath, sessionId, show, storageKey, t, text, ui, type StatusView } from './page';

/** What the page remembers across the trip to the provider (same tab, same origin). */
export interface Pending {
  transactionId: string;
  providerType: string;
}

export const DIRECT_DEBIT = 'provider_c';
/** Transaction statuses after which nothing changes for the buyer: completed, failed, canceled, refunded, disputed. */
export const FINAL = new Set([1, 2, -2, 3, 4]);

/** The transaction this tab started for the session, if any. */
export function storedPending(): Pending | undefined {
  try {
    const stored = JSON.parse(sessionStorage.getItem(storageKey) ?? 'null') as Pending | null;
    return stored && typeof stored.transactionId === 'string' && /^[0-9a-f]{24}$/.test(stored.transactionId)
      ? stored
      : undefined;
  } catch {
    return undefined;
  }
}

export function readPending(transactionId: string): Pending {
  const stored = storedPending();
  // Nothing remembered (another tab, a link from the provider): the status view alone decides.
  return stored && stored.transactionId === transactionId ? stored : { transactionId, providerType: '' };
}

export function resultView(title: string, body: string): void {
  show(ui.form, false);
  show(ui.notice.box, false);
  text(ui.resultTitle, title);
  text(ui.resultText, body);
  ui.resultActions.replaceChildren();
  show(ui.result);
  ui.resultTitle.focus();
}

export function actionLink(label: string, href: string): HTMLAnchorElement {
  const a = doc.createElement('a');
  a.href = href;
  a.className = 'button secondary';
  a.textContent = label;
  return a;
}

export function actionButton(label: string, onClick: () => void): HTMLButtonElement {
  const b = doc.createElement('button');
  b.type = 'button';
  b.textContent = label;
  b.addEventListener('click', onClick);
  return b;
}

/** Back to the form for another attempt (a failed or canceled payment leaves the session open). */
export function retry(): void {
  sessionStorage.removeItem(storageKey);
  location.replace(pagePath());
}

export const sleep = (ms: number) => new Promise<void>((resolve) => window.setTimeout(resolve, ms));

/**
 * After the provider: polls the status view until the status is final, then follows the
 * merchant's returnUrl (paid) or cancelUrl (canceled). A failed payment offers another attempt.
 * A direct debit stays pending for days: once the buyer has set it up, it is reported as
 * submitted (mark-pending) and the buyer goes back to the merchant.
 */
export async function followTransaction(pending: Pending): Promise<void> {
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
export function showCharged(s: StatusView): void {
  ui.summary.classList.add('settled');
  text(ui.total, money(s.amount, s.currency));
}

export function leave(url: string): void {
  if (!/^https?:\/\//i.test(url)) return;
  text(ui.resultText, t('result.redirecting'));
  ui.resultActions.replaceChildren(actionLink(t('result.back'), url));
  location.replace(url);
}

export function finish(s: StatusView): void {
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
