import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'puppeteer-core';
import {
  ARTIFACTS_DIR,
  inPage,
  innerText,
  launchBrowser,
  seriousA11yViolations,
  type TestBrowser,
} from '../support/browser';
import { applyWalkthroughTo, enrolledPage, inviteMember, waitForHeading } from '../support/dashboard';
import { validateEInvoices } from '../support/einvoice-kit';
import { MailCatcherClient } from '../support/mail-catcher';
import { api, eventually, startTestMesh, type TestMesh } from '../support/mesh';

/**
 * The invoicing half of the merchant dashboard in Chromium against the whole mesh (the
 * walk-through organization's settings: German seller with OSS): a client created and edited in
 * its form, a draft whose VAT the API computes live and recomputes when the client moves from
 * Germany to France, issue, the PDF and XRechnung downloaded (the XRechnung passing the official
 * validator), e-mail to the mail catcher with its delivery state, void with its credit note, what a
 * Viewer may not do, and axe-core at 768 px and wide. Screenshots and downloads go to .run/artifacts/dashboard-invoicing/.
 */
describe('merchant dashboard: invoices and clients in Chromium', () => {
  let mesh: TestMesh;
  let browser: TestBrowser;
  let boot: Awaited<ReturnType<TestMesh['bootstrap']>>;
  let catcher: MailCatcherClient;
  let admin: Page;
  let dashboard: string;
  let clientId: string;
  let invoiceId: string;
  let invoiceNumber: string;
  /** An issued invoice for payment links, a correction and a schedule. */
  let secondId: string;
  const buyerEmail = 'erika.muster@buyer.example';
  /** The browser's download folder (inside the suite's artefacts, which each run starts empty). */
  const downloads = join(ARTIFACTS_DIR, 'dashboard-invoicing', 'downloads');

  const adminApi = (method: string, path: string, body?: unknown) =>
    api(method, `${mesh.adminBaseUrl}${path}`, { token: boot.apiKey, ...(body !== undefined ? { body } : {}) });
  const heading = (page: Page, text: string) => waitForHeading(browser, page, text);
  const eur = (minor: number) =>
    new Intl.NumberFormat('en-GB', { style: 'currency', currency: 'EUR' }).format(minor / 100);

  /** axe-core finds nothing serious, wide and at 768 px (the narrowest width the app supports). */
  async function accessible(page: Page, name: string): Promise<void> {
    for (const width of [1280, 768]) {
      await page.setViewport({ width, height: 900 });
      await browser.screenshot(page, `${name}-${width}`);
      expect(await seriousA11yViolations(page), `${name} at ${width}px`).toEqual([]);
    }
    await page.setViewport({ width: 1280, height: 900 });
  }

  /** Replaces the text of an input (React sees every keystroke). */
  async function retype(page: Page, selector: string, text: string): Promise<void> {
    await page.click(selector, { count: 3 });
    await page.keyboard.press('Backspace');
    await page.type(selector, text);
  }

  /** Sets a date input as a merchant's pick would (React sees the input event). */
  async function setDate(selector: string, ymd: string): Promise<void> {
    await inPage(
      admin,
      `(() => {
        const input = document.querySelector(${JSON.stringify(selector)});
        Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set.call(input, ${JSON.stringify(ymd)});
        input.dispatchEvent(new Event('input', { bubbles: true }));
      })()`,
    );
  }

  /** Clicks a download button and answers the bytes of the file the browser saved. */
  async function downloaded(page: Page, selector: string, ext: string): Promise<Buffer> {
    const before = new Set(readdirSync(downloads));
    await page.click(selector);
    const name = await eventually(async () => {
      // A refused download shows the API's message: fail with it rather than wait.
      const refused = await innerText(page, '.delivery [role="alert"]');
      if (refused) throw new Error(`download ${selector} refused: ${refused}`);
      return readdirSync(downloads).find((f) => !before.has(f) && f.endsWith(`.${ext}`) && !f.endsWith('.crdownload'));
    });
    return readFileSync(join(downloads, name));
  }

  /** The tax the API computes for the draft's line and client, as the editor must show it. */
  async function apiPreview(): Promise<{ totalTax: number; totalNet: number; rate: number }> {
    const res = await adminApi('POST', '/invoices/preview-tax', {
      siteId: boot.siteId,
      clientId,
      currency: 'EUR',
      items: [
        { description: 'Consulting', quantity: 2, unitPrice: 11900, amountType: 'gross', itemType: 'digital_service' },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return { totalTax: res.body.totalTax, totalNet: res.body.totalNet, rate: res.body.taxBreakdown[0].taxRate };
  }

  /** Waits until the editor's preview answers the form as it is now and shows `vat` at `rate`. */
  async function previewShows(page: Page, rate: number, vat: number): Promise<void> {
    const box = `document.querySelector('[data-testid="tax-preview"]')`;
    const cell = `document.querySelector('[data-testid="preview-vat"][data-rate="${rate}"]')`;
    await page.waitForFunction(
      `${box}?.getAttribute('data-current') === 'true' && ${cell}?.textContent === ${JSON.stringify(eur(vat))}`,
      { timeout: 20_000 },
    );
  }

  beforeAll(async () => {
    mesh = await startTestMesh({ env: { EMAIL_POLL_INTERVAL_MS: '100', EMAIL_BACKOFF_BASE_MS: '200' } });
    const mail = mesh.sandboxUrls['sandbox-mail'];
    if (!mail) throw new Error('the mail catcher did not start with the mesh');
    catcher = new MailCatcherClient(mail);
    boot = await mesh.bootstrap();
    dashboard = mesh.dashboardUrl;
    await applyWalkthroughTo(mesh, boot);
    browser = await launchBrowser('dashboard-invoicing');
    admin = await enrolledPage(browser, boot.enrollmentLink as string, { downloads });
  });

  afterAll(async () => {
    await browser?.close();
    await mesh?.dispose();
  });

  it('an Admin creates a client in its form (address in Germany, language, e-invoice format) and finds it by search', async () => {
    await admin.goto(`${dashboard}clients`);
    await heading(admin, 'Clients');
    await admin.click('#new-client');
    await admin.waitForSelector('#client-form');
    await admin.type('#cl-name', 'Erika Muster');
    await admin.type('#cl-email', buyerEmail);
    await admin.type('#cl-street', 'Hauptstraße 5');
    await admin.type('#cl-postalCode', '10115');
    await admin.type('#cl-city', 'Berlin');
    await admin.type('#cl-country', 'DE');
    await admin.select('#cl-language', 'de');
    await admin.select('#cl-peppolScheme', '0204');
    // The form explains the scheme's rules.
    expect(await innerText(admin, '#cl-peppolScheme-hint')).toContain('Leitweg-ID');
    await admin.select('#cl-peppolScheme', '');
    await accessible(admin, 'client-form');
    await admin.click('#client-form button[type="submit"]');
    await heading(admin, 'Client Erika Muster');
    clientId = new URL(admin.url()).pathname.split('/').pop() as string;
    const stored = (await adminApi('GET', `/clients/${clientId}`)).body;
    expect(stored).toMatchObject({
      name: 'Erika Muster',
      email: buyerEmail,
      address: { street: 'Hauptstraße 5', postalCode: '10115', city: 'Berlin', country: 'DE' },
      language: 'de',
      eInvoiceFormat: null,
    });

    await admin.goto(`${dashboard}clients?q=Muster`);
    await admin.waitForSelector('[data-testid="clients"] tbody tr');
    expect(await innerText(admin, '[data-testid="clients"]')).toContain('Erika Muster');
    await accessible(admin, 'clients');
  });

  it('a draft shows the VAT the API computes as the merchant types, and the French rate (OSS) once the client lives in France', async () => {
    await admin.goto(`${dashboard}clients/${clientId}`);
    await heading(admin, 'Client Erika Muster');
    await admin.click('a[href^="/app/invoices/new"]');
    await heading(admin, 'New draft invoice');
    await admin.waitForFunction(`document.querySelector('#inv-client')?.value === ${JSON.stringify(clientId)}`);
    await admin.type('#line-0-description', 'Consulting');
    await admin.select('#line-0-itemType', 'digital_service');
    await retype(admin, '#line-0-quantity', '2');
    await admin.type('#line-0-unitPrice', '119.00');
    const german = await apiPreview();
    expect(german.rate).toBe(19);
    await previewShows(admin, 19, german.totalTax);
    expect(await innerText(admin, '[data-testid="preview-net"]')).toBe(eur(german.totalNet));
    expect(await innerText(admin, '[data-testid="preview-gross"]')).toBe(eur(23800));
    await accessible(admin, 'draft-editor');
    await admin.click('#invoice-form button[type="submit"]');
    await heading(admin, 'Draft invoice');
    invoiceId = new URL(admin.url()).pathname.split('/').pop() as string;

    // The client moves to France: a consumer there, taxed where they live under OSS.
    await admin.goto(`${dashboard}clients/${clientId}`);
    await heading(admin, 'Client Erika Muster');
    await admin.click('#edit-client-button');
    await retype(admin, '#cl-postalCode', '75001');
    await retype(admin, '#cl-city', 'Paris');
    await retype(admin, '#cl-country', 'FR');
    await admin.click('#client-form button[type="submit"]');
    await admin.waitForFunction(`document.querySelector('#client-details')?.textContent.includes('Paris')`);
    const french = await apiPreview();
    expect(french.rate).not.toBe(19);
    await admin.goto(`${dashboard}invoices/${invoiceId}`);
    await heading(admin, 'Draft invoice');
    await previewShows(admin, french.rate, french.totalTax);
    await browser.screenshot(admin, 'draft-france');
  });

  it('issuing shows the number; the PDF and the XRechnung download', async () => {
    await admin.click('#issue-invoice');
    await heading(admin, 'Invoice ');
    invoiceNumber = await innerText(admin, '[data-testid="invoice-number"]');
    const stored = (await adminApi('GET', `/invoices/${invoiceId}`)).body;
    expect(stored.status).toBe('issued');
    expect(invoiceNumber).toBe(stored.number);
    expect(await innerText(admin, 'h1')).toContain(invoiceNumber);

    const pdf = await downloaded(admin, '[data-download="pdf"]', 'pdf');
    expect(pdf.subarray(0, 4).toString('latin1')).toBe('%PDF');
    const xml = (await downloaded(admin, '[data-download="xrechnung"]', 'xml')).toString('utf8');
    // The root element of a UBL invoice (XRechnung 3.0, UBL syntax).
    expect(/^\s*(?:<\?xml[^>]*\?>\s*)?<(?:\w+:)?Invoice\b/.exec(xml)).not.toBeNull();
    expect(xml).toContain(invoiceNumber);
    // The downloaded file passes the official XRechnung validation artefacts.
    const file = join(downloads, 'issued-xrechnung.xml');
    writeFileSync(file, xml);
    const [verdict] = await validateEInvoices('xrechnung-ubl', [file]);
    expect(verdict?.fatal).toEqual([]);
    expect(verdict?.valid).toBe(true);
    // Beside the downloads: the validation report the product recorded for the file it generated.
    await admin.waitForSelector('[data-testid="einvoice-reports"] [data-format="xrechnung"][data-valid="true"]');
    await accessible(admin, 'invoice-issued');
  });

  it('sending by e-mail reaches the mail catcher and the delivery state turns to sent', async () => {
    await admin.type('#em-message', 'Thank you for your order.');
    await admin.click('#invoice-email button[type="submit"]');
    await admin.waitForSelector('[data-testid="emails"] [data-state="sent"]', { timeout: 30_000 });
    const [message] = await eventually(async () => {
      const got = await catcher.to(buyerEmail);
      return got.length > 0 ? got : undefined;
    });
    expect(message?.subject).toContain(invoiceNumber);
    expect(message?.text).toContain('Thank you for your order.');
    expect(message?.attachments.some((a) => a.contentType === 'application/pdf')).toBe(true);
  });

  it('an Admin voids the invoice after a confirmation that names the credit note, and sees the credit note', async () => {
    await admin.click('#void-invoice-button');
    const question = await innerText(admin, '[data-testid="void-confirmation"]');
    expect(question).toContain(invoiceNumber);
    expect(question).toContain('credit note');
    await accessible(admin, 'void-confirmation');
    await admin.type('#void-reason', 'ordered twice');
    await admin.click('#void-confirm');
    await admin.waitForSelector('[data-testid="credit-note-number"]');
    const stored = (await adminApi('GET', `/invoices/${invoiceId}`)).body;
    expect(stored.status).toBe('void');
    const note = (await adminApi('GET', `/credit-notes/${stored.creditNoteIds[0]}`)).body;
    expect(await innerText(admin, '[data-testid="credit-note-number"]')).toBe(note.number);
    expect(await innerText(admin, 'h1')).toContain('Void');
    expect(await admin.$('#void-invoice-button')).toBeNull();
    // The invoice's page lists its history: the audit events the audit trail holds for it.
    const trail = (await adminApi('GET', `/audit-events?resource=invoice&id=${invoiceId}&limit=20`)).body.items as {
      operation: string;
    }[];
    expect(trail.length).toBeGreaterThanOrEqual(3);
    await admin.reload();
    await admin.waitForFunction(
      `document.querySelectorAll('[data-testid="history-invoice"] li').length >= ${trail.length}`,
    );
    expect(await innerText(admin, '[data-testid="history-invoice"]')).toContain(trail[0]?.operation ?? '?');

    await admin.goto(`${dashboard}invoices?status=void`);
    await admin.waitForSelector('[data-testid="invoices"] tbody tr');
    expect(await innerText(admin, '[data-testid="invoices"]')).toContain(invoiceNumber);
    await accessible(admin, 'invoices');

    // In German: German labels, amounts in the German format.
    await admin.select('#language', 'de');
    await heading(admin, 'Rechnungen');
    expect(await innerText(admin, '[data-testid="invoices"]')).toContain('Storniert');
    expect(await innerText(admin, '[data-testid="invoices"]')).toContain('238,00\u00a0€');
    await accessible(admin, 'de-invoices');
    await admin.select('#language', 'en');
    await heading(admin, 'Invoices');
  });

  it('the credit notes list shows the credit note of the voided invoice; its page downloads the PDF', async () => {
    const stored = (await adminApi('GET', `/invoices/${invoiceId}`)).body;
    const note = (await adminApi('GET', `/credit-notes/${stored.creditNoteIds[0]}`)).body;
    await admin.goto(`${dashboard}credit-notes`);
    await heading(admin, 'Credit notes');
    await admin.waitForSelector('[data-testid="credit-notes"] tbody tr');
    const row = await innerText(admin, '[data-testid="credit-notes"] tbody tr');
    expect(row).toContain(note.number);
    expect(row).toContain(invoiceNumber);
    expect(row).toContain('Invoice voided');
    await accessible(admin, 'credit-notes');
    await admin.click(`a[href$="/credit-notes/${note.id}"]`);
    await heading(admin, `Credit note ${note.number}`);
    const pdf = await downloaded(admin, '[data-download="pdf"]', 'pdf');
    expect(pdf.subarray(0, 4).toString('latin1')).toBe('%PDF');
    // Sent by e-mail to the buyer: the mail catcher receives it, the page follows it to sent.
    await admin.type('#cn-message', 'Your order was cancelled.');
    await admin.click('#credit-note-email button[type="submit"]');
    await admin.waitForSelector('[data-testid="credit-note-emails"] [data-state="sent"]', { timeout: 30_000 });
    const mail = await eventually(async () => {
      const got = (await catcher.to(buyerEmail)).filter((m) => m.subject.includes(note.number));
      return got.length > 0 ? got[0] : undefined;
    });
    expect(mail?.text).toContain('Your order was cancelled.');
  });

  it('an issued invoice: a payment link within the limits is created and copied; a buyer correction shows what it changes before confirming', async () => {
    const created = await adminApi('POST', '/invoices', {
      siteId: boot.siteId,
      clientId,
      currency: 'EUR',
      items: [{ description: 'Support plan', quantity: 1, unitPrice: 5000, amountType: 'gross', itemType: 'service' }],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    secondId = created.body.id;
    const issued = await adminApi('POST', `/invoices/${secondId}/issue`);
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    await admin.goto(`${dashboard}invoices/${secondId}`);
    await heading(admin, `Invoice ${issued.body.number}`);

    // Below the spec's minimum of 50 minor units: refused before any link exists.
    await admin.type('#pl-amount', '0.40');
    await admin.click('#payment-link-form button[type="submit"]');
    await admin.waitForSelector('#payment-links [role="alert"]');
    expect((await adminApi('GET', `/invoices/${secondId}`)).body.paymentLinks).toEqual([]);
    await retype(admin, '#pl-amount', '20.00');
    await admin.type('#pl-hours', '48');
    await admin.click('#payment-link-form button[type="submit"]');
    await admin.waitForSelector('[data-testid="payment-link-url"]');
    const [link] = (await adminApi('GET', `/invoices/${secondId}`)).body.paymentLinks;
    expect(link.amount).toBe(2000);
    expect(Date.parse(link.expiresAt) - Date.parse(link.createdAt)).toBeCloseTo(48 * 3600_000, -5);
    expect(await innerText(admin, '[data-testid="payment-link-url"]')).toBe(link.paymentUrl);
    // The headless browser grants no clipboard: record what the button writes there instead.
    await inPage(admin, `navigator.clipboard.writeText = async (text) => { window.copiedText = text; }`);
    await admin.click('[data-testid="payment-links"] tbody tr button');
    await admin.waitForSelector('#payment-links [role="status"]');
    expect(await inPage(admin, 'window.copiedText')).toBe(link.paymentUrl);

    await admin.click('#correct-invoice-button');
    await retype(admin, '#co-name', 'Erika Muster-Schmidt');
    await admin.type('#co-reason', 'name changed at marriage');
    await admin.click('#correct-form button[type="submit"]');
    await admin.waitForSelector('[data-testid="correction-diff"]');
    // Only what changes, before and after; nothing is stored until confirmed.
    const diff = await inPage<string[][]>(
      admin,
      `Array.from(document.querySelectorAll('[data-testid="correction-diff"] tbody tr'), (r) => Array.from(r.querySelectorAll('td'), (c) => c.textContent))`,
    );
    expect(diff).toEqual([['Name', 'Erika Muster', 'Erika Muster-Schmidt']]);
    expect((await adminApi('GET', `/invoices/${secondId}`)).body.corrections).toEqual([]);
    await accessible(admin, 'correction-review');
    await admin.click('#correct-confirm');
    await admin.waitForSelector('[data-testid="corrections"]');
    const corrected = (await adminApi('GET', `/invoices/${secondId}`)).body;
    expect(corrected.snapshot.buyer.name).toBe('Erika Muster-Schmidt');
    expect(corrected.corrections[0].reason).toBe('name changed at marriage');
    expect((await adminApi('GET', `/clients/${clientId}`)).body.name).toBe('Erika Muster');
    await accessible(admin, 'payment-links');

    // The list filters by the gross total on the server: 200 to 300 EUR holds the voided invoice only.
    await admin.goto(`${dashboard}invoices`);
    await heading(admin, 'Invoices');
    await admin.type('#if-min', '200');
    await admin.type('#if-max', '300');
    await admin.click('form.filters button[type="submit"]');
    await admin.waitForFunction(
      `location.search.includes('minAmount=20000') && location.search.includes('maxAmount=30000')`,
    );
    await admin.waitForSelector('[data-testid="invoices"] tbody tr');
    const listed = await innerText(admin, '[data-testid="invoices"]');
    expect(listed).toContain(invoiceNumber);
    expect(listed).not.toContain(issued.body.number);
    const filtered = (await adminApi('GET', '/invoices?minAmount=20000&maxAmount=30000')).body;
    expect(filtered.items.map((i: { id: string }) => i.id)).toEqual([invoiceId]);
    expect((await adminApi('GET', '/invoices?minAmount=ten')).status).toBe(400);
  });

  it('a monthly schedule from Jan 31 shows Feb 28/29, Mar 31 and Apr 30 as the merchant types; pause, resume, cancel with a reason', async () => {
    await admin.goto(`${dashboard}invoices/${secondId}`);
    await admin.waitForSelector('#make-recurring');
    await admin.click('#make-recurring');
    await heading(admin, 'New recurring schedule');
    await admin.waitForFunction(`document.querySelector('#rs-template')?.value === ${JSON.stringify(secondId)}`);
    await admin.type('#rs-name', 'Monthly support');
    await admin.select('#rs-interval', 'month');
    const shown = async () =>
      admin.$$eval('[data-testid="next-dates"] li', (li) => li.map((e) => e.getAttribute('data-date')));
    await setDate('#rs-start', '2027-01-31');
    await admin.waitForSelector('[data-testid="next-dates"]');
    expect(await shown()).toEqual(['2027-01-31', '2027-02-28', '2027-03-31', '2027-04-30']);
    expect(await innerText(admin, '[data-testid="next-dates"]')).toContain('28 Feb 2027');
    await setDate('#rs-start', '2028-01-31');
    await admin.waitForFunction(
      `document.querySelector('[data-testid="next-dates"] li:nth-child(2)')?.dataset.date === '2028-02-29'`,
    );
    expect(await shown()).toEqual(['2028-01-31', '2028-02-29', '2028-03-31', '2028-04-30']);
    await accessible(admin, 'schedule-form');
    await admin.click('#schedule-form button[type="submit"]');
    await heading(admin, 'Schedule Monthly support');
    const scheduleId = new URL(admin.url()).pathname.split('/').pop() as string;
    const stored = (await adminApi('GET', `/invoices/recurring/${scheduleId}`)).body;
    expect(stored).toMatchObject({
      startDate: '2028-01-31',
      interval: 'month',
      intervalCount: 1,
      nextRunDate: '2028-01-31',
    });
    // The upcoming charges the service projects, with their tax estimate, as the page shows them.
    const upcoming = (await adminApi('GET', `/invoices/recurring/${scheduleId}/upcoming?count=6`)).body.upcoming;
    expect(upcoming[1].scheduledDate).toBe('2028-02-29');
    await admin.waitForSelector('[data-testid="upcoming"] tbody tr');
    const rows = await inPage<string[]>(
      admin,
      `Array.from(document.querySelectorAll('[data-testid="upcoming"] tbody tr'), (e) => e.innerText)`,
    );
    expect(rows).toHaveLength(upcoming.length);
    expect(rows[1]).toContain('29 Feb 2028');
    expect(rows[1]).toContain(eur(upcoming[1].taxEstimate));

    const status = (s: string) => admin.waitForSelector(`h1 [data-status="${s}"]`);
    await admin.click('#pause-schedule');
    await status('paused');
    await admin.click('#resume-schedule');
    await status('active');
    await admin.click('#cancel-schedule-button');
    await admin.type('#cancel-reason', '  moving to annual billing  ');
    await accessible(admin, 'schedule-cancel');
    await admin.click('#cancel-confirm');
    await status('cancel_requested');
    expect(await innerText(admin, '[data-testid="cancellation-reason"]')).toBe('moving to annual billing');
    expect((await adminApi('GET', `/invoices/recurring/${scheduleId}`)).body).toMatchObject({
      status: 'cancel_requested',
      cancellationReason: 'moving to annual billing',
    });
    await accessible(admin, 'schedule');
    await admin.goto(`${dashboard}recurring`);
    await admin.waitForSelector('[data-testid="schedules"] tbody tr');
    expect(await innerText(admin, '[data-testid="schedules"]')).toContain('Monthly support');
  });

  it('the draft editor shows the pro forma PDF inline and shows it again once the draft is saved', async () => {
    const created = await adminApi('POST', '/invoices', {
      siteId: boot.siteId,
      clientId,
      currency: 'EUR',
      items: [{ description: 'Workshop', quantity: 1, unitPrice: 9900, amountType: 'gross', itemType: 'service' }],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await admin.goto(`${dashboard}invoices/${created.body.id}`);
    await heading(admin, 'Draft invoice');
    const frame = '[data-testid="proforma-preview"]';
    await admin.waitForSelector(frame);
    // The frame shows a PDF blob of the page (the dashboard's CSP lets it frame blobs, nothing else).
    const shownPdf = () =>
      eventually(async () => {
        const [src, type, bytes] = await admin.$eval(frame, (f) => [
          f.getAttribute('src') ?? '',
          f.getAttribute('data-type'),
          Number(f.getAttribute('data-bytes')),
        ]);
        const framed = admin.frames().some((f) => f.url() === src);
        return framed && type === 'application/pdf' && bytes > 1000 ? src : undefined;
      });
    const first = await shownPdf();
    expect(first).toMatch(/^blob:/);
    await admin.type('#inv-notes', 'Thank you');
    await admin.click('#invoice-form button[type="submit"]');
    const saved = await eventually(async () => {
      const inv = (await adminApi('GET', `/invoices/${created.body.id}`)).body;
      return inv.notes === 'Thank you' ? inv : undefined;
    });
    await admin.waitForFunction(
      `document.querySelector('${frame}')?.dataset.version === ${JSON.stringify(saved.updatedAt)} && document.querySelector('${frame}')?.getAttribute('src') !== ${JSON.stringify(first)}`,
      { timeout: 20_000 },
    );
    expect(await shownPdf()).not.toBe(first);
    await accessible(admin, 'proforma-preview');
  });

  it('an Admin deletes a client after confirming; the list no longer shows it', async () => {
    const created = await adminApi('POST', '/clients', { name: 'Temporary Buyer', email: 'temp@buyer.example' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await admin.goto(`${dashboard}clients/${created.body.id}`);
    await heading(admin, 'Client Temporary Buyer');
    await admin.click('#delete-client');
    expect(await innerText(admin, '#delete-client-q')).toContain('Temporary Buyer');
    await admin.click('#delete-client-confirm');
    await heading(admin, 'Clients');
    expect((await adminApi('GET', `/clients/${created.body.id}`)).status).toBe(404);
    await admin.waitForSelector('[data-testid="clients"] tbody tr');
    expect(await innerText(admin, '[data-testid="clients"]')).not.toContain('Temporary Buyer');
  });

  it('a Viewer sees the invoices and clients but no write action', async () => {
    const { page: viewer } = await inviteMember(browser, admin, dashboard, {
      email: 'viewer@merchant.example',
      name: 'Vera Viewer',
      role: 'Viewer',
    });
    await viewer.goto(`${dashboard}invoices`);
    await viewer.waitForSelector('[data-testid="invoices"] tbody tr');
    expect(await viewer.$('#new-invoice')).toBeNull();
    await viewer.goto(`${dashboard}invoices/${invoiceId}`);
    await viewer.waitForSelector('[data-testid="invoice-number"]');
    expect(await viewer.$('#em-to')).toBeNull();
    expect(await viewer.$('#void-invoice-button')).toBeNull();
    expect(await viewer.$('#issue-invoice')).toBeNull();
    // Downloads and search need execute scopes, which a Viewer does not hold: not offered, no error shown.
    expect(await viewer.$('[data-download]')).toBeNull();
    expect(await viewer.$('[role="alert"]')).toBeNull();
    await viewer.goto(`${dashboard}clients`);
    await viewer.waitForSelector('[data-testid="clients"] tbody tr');
    expect(await viewer.$('#new-client')).toBeNull();
    expect(await viewer.$('#c-q')).toBeNull();
    expect(await viewer.$('[role="alert"]')).toBeNull();
    await viewer.goto(`${dashboard}clients/${clientId}`);
    await waitForHeading(browser, viewer, 'Client Erika Muster');
    expect(await viewer.$('#edit-client-button')).toBeNull();
    expect(await viewer.$('a[href^="/app/invoices/new"]')).toBeNull();
    await accessible(viewer, 'viewer-client');
  });
});
