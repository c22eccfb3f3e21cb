import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WALKTHROUGH_INVOICING, type BootstrapResult } from '../../deploy/local/bootstrap-lib.mjs';
import { inPage, innerText, launchBrowser, seriousA11yViolations, type TestBrowser } from '../support/browser';
import { downloadsTo, enrolledPage } from '../support/dashboard';
import { api, eventually, startTestMesh, type TestMesh } from '../support/mesh';
import { payWithSandbox } from '../support/sandbox-pay';

const MAIN_FRONTEND = 'https://checkout.paymesh.test';

/**
 * The dashboard's Accounting screen in Chromium against the whole mesh, after a checkout paid
 * through the provider_a sandbox and invoiced by itself: a DATEV export started in the app, its
 * progress bar followed to the end and its kept zip downloaded (an EXTF Buchungsstapel with the
 * invoice and its payment), the GDPdU package of the year, the integrity check, the payment's
 * history on its page, and a Viewer without export buttons; axe-core at 768 px and wide.
 * Screenshots go to .run/artifacts/dashboard-accounting/.
 */
describe('dashboard accounting in Chromium', () => {
  let mesh: TestMesh;
  let browser: TestBrowser;
  let boot: BootstrapResult;
  let admin: Page;
  let transactionId: string;
  let invoiceNumber: string;
  const downloads = mkdtempSync(join(tmpdir(), 'paymesh-dashboard-downloads-'));
  const year = new Date().getFullYear();

  const adminCall = (method: string, path: string, body?: unknown) =>
    api(method, `${mesh.adminBaseUrl}${path}`, { token: boot.apiKey, ...(body !== undefined ? { body } : {}) });

  /** Waits for the screen whose main heading holds `text`. */
  const heading = (page: Page, text: string) =>
    page.waitForFunction(`document.querySelector('h1')?.textContent?.includes(${JSON.stringify(text)})`, {
      timeout: 20_000,
    });

  async function noSeriousViolations(page: Page, name: string): Promise<void> {
    await browser.screenshot(page, name);
    expect(await seriousA11yViolations(page), name).toEqual([]);
  }

  /** The bytes of the one finished download in `dir` whose name matches. */
  const downloaded = (dir: string, name: RegExp) =>
    eventually(() => {
      let files: string[] = [];
      try {
        files = readdirSync(dir);
      } catch {
        return undefined;
      }
      const file = files.find((f) => name.test(f));
      return file && !files.some((f) => f.endsWith('.crdownload')) ? readFileSync(join(dir, file)) : undefined;
    }, 30_000);

  beforeAll(async () => {
    mesh = await startTestMesh({ env: { MAIN_FRONTEND_ORIGIN: MAIN_FRONTEND } });
    boot = await mesh.bootstrap();
    browser = await launchBrowser('dashboard-accounting');
    // The walk-through's German seller, invoicing paid checkouts by itself, with adviser numbers.
    const tax = await adminCall('PUT', '/organizations/settings/tax', { homeCountry: 'DE' });
    expect(tax.status, JSON.stringify(tax.body)).toBe(200);
    const settings = await adminCall('PUT', '/organizations/settings/invoicing', {
      ...WALKTHROUGH_INVOICING,
      datev: { consultantNumber: 29098, clientNumber: 55003 },
    });
    expect(settings.status, JSON.stringify(settings.body)).toBe(200);
    // A checkout paid by card.
    const checkout = await adminCall('POST', `/checkouts/${boot.siteId}/create`, {
      amount: 4990,
      currency: 'EUR',
      externalReference: 'order-accounting',
      returnUrl: `${MAIN_FRONTEND}/thanks/{transactionId}`,
    });
    expect(checkout.status, JSON.stringify(checkout.body)).toBe(200);
    transactionId = await payWithSandbox(
      {
        adminBaseUrl: mesh.adminBaseUrl,
        publicBaseUrl: mesh.publicBaseUrl,
        apiKey: boot.apiKey,
        sandboxUrl: mesh.sandboxUrls['sandbox-provider-a']!,
        provider: boot.providers!.provider_a!,
        origin: MAIN_FRONTEND,
        billingAddress: {
          name: 'Grete Käuferin',
          email: 'grete@kaeuferin.example',
          line1: 'Marktplatz 3',
          city: 'Leipzig',
          postalCode: '04109',
          country: 'DE',
        },
      },
      checkout.body.sessionPublicId,
    );
    // The organization invoices the paid checkout by itself; the invoice records the payment.
    invoiceNumber = await eventually(async () => {
      const items = (await adminCall('GET', '/invoices?limit=100')).body.items as Array<{
        sourceTransactionId: string | null;
        status: string;
        number: string | null;
      }>;
      const invoice = items.find((i) => i.sourceTransactionId === transactionId);
      return invoice?.status === 'paid' && invoice.number ? invoice.number : undefined;
    }, 30_000);
    admin = await enrolledPage(browser, boot.enrollmentLink as string, { viewport: { width: 1280, height: 900 } });
  });

  afterAll(async () => {
    await browser?.close();
    await mesh?.dispose();
    rmSync(downloads, { recursive: true, force: true });
  });

  it('an Admin starts a DATEV export, follows its progress bar to the end and downloads an EXTF zip', async () => {
    const dir = join(downloads, 'admin');
    await downloadsTo(browser, admin, dir);
    await admin.click('a[href="/app/accounting"]');
    await heading(admin, 'Accounting');
    await admin.waitForSelector('[data-testid="datev-exports"], #datev p.muted');
    await noSeriousViolations(admin, 'accounting-wide');

    await admin.click('[data-testid="datev-start"]');
    await admin.waitForSelector('[data-testid="datev-progress"]');
    await admin.waitForSelector('[data-testid="datev-progress"][data-status="completed"]', { timeout: 30_000 });
    const bar = await inPage<{ value: number; max: number }>(
      admin,
      `(() => { const p = document.querySelector('#datev-progress-bar'); return { value: p.value, max: p.max }; })()`,
    );
    expect(bar.max).toBeGreaterThanOrEqual(2);
    expect(bar.value).toBe(bar.max);
    await noSeriousViolations(admin, 'datev-completed');

    const record = (await adminCall('GET', '/accounting/datev/exports?limit=1')).body.items[0];
    expect(record).toMatchObject({ status: 'completed', file: true, counts: { invoices: 1, payments: 1 } });
    expect(record.progress).toEqual({ done: bar.max, total: bar.max });
    const button = `[data-testid="datev-download-${record.id}"]`;
    await admin.waitForSelector(button);
    expect(await innerText(admin, '[data-testid="datev-exports"]')).toContain(record.digest);
    await admin.click(button);
    const zip = await downloaded(dir, /^DATEV-.*\.zip$/);
    const files = unzipSync(new Uint8Array(zip));
    const postings = Object.keys(files).find((n) => n.startsWith('EXTF_Buchungsstapel_'))!;
    const text = Buffer.from(files[postings]!).toString('latin1');
    expect(text.startsWith('"EXTF";700;21;"Buchungsstapel"')).toBe(true);
    const docField = `"${invoiceNumber.replace(/[^A-Za-z0-9$&%*+\-/]/g, '-')}"`;
    expect(text.split('\r\n').filter((l) => l.includes(docField))).toHaveLength(2);
  });

  it('downloads the GDPdU package of the year', async () => {
    const dir = join(downloads, 'admin');
    await admin.click('[data-testid="gdpdu-start"]');
    await admin.waitForSelector('[data-testid="gdpdu-progress"][data-busy="false"]', { timeout: 30_000 });
    const zip = await downloaded(dir, new RegExp(`^GDPdU-${year}\\.zip$`));
    const files = unzipSync(new Uint8Array(zip));
    expect(Object.keys(files)).toEqual(expect.arrayContaining(['index.xml', 'invoices.csv', 'payments.csv']));
    expect(Buffer.from(files['invoices.csv']!).toString('utf8')).toContain('Grete Käuferin');
  });

  it('the integrity check of issued documents passes', async () => {
    await admin.click('#integrity button');
    await admin.waitForSelector('[data-testid="integrity-result"]');
    expect(await admin.$eval('[data-testid="integrity-result"]', (el) => el.getAttribute('data-ok'))).toBe('true');
    expect(await innerText(admin, '[data-testid="integrity-result"]')).toMatch(/^Intact: /);
  });

  it('the Accounting screen is accessible at 768 px, in German too', async () => {
    await admin.setViewport({ width: 768, height: 1000 });
    await admin.select('#language', 'de');
    await heading(admin, 'Buchhaltung');
    await noSeriousViolations(admin, 'accounting-768-de');
    await admin.select('#language', 'en');
    await admin.setViewport({ width: 1280, height: 900 });
  });

  it("the payment's page lists its history from the audit trail", async () => {
    const events = await eventually(async () => {
      const r = await adminCall('GET', `/audit-events?resource=transaction&id=${transactionId}&limit=20`);
      return r.body.items.length >= 2 ? (r.body.items as Array<{ operation: string }>) : undefined;
    }, 20_000);
    await admin.goto(`${mesh.dashboardUrl}payments/${transactionId}`);
    await admin.waitForSelector('[data-testid="history-transaction"] li');
    const items = await admin.$$eval('[data-testid="history-transaction"] li', (lis) =>
      lis.map((li) => li.textContent),
    );
    expect(items.length).toBeGreaterThanOrEqual(events.length);
    for (const e of events) expect(items.join('\n')).toContain(e.operation);
    await noSeriousViolations(admin, 'transaction-history');
  });

  it('a Viewer sees the past exports but no button that starts or downloads one', async () => {
    const invited = await adminCall('POST', `/organizations/${boot.organizationId}/members`, {
      email: 'viewer@accounting.example',
      name: 'Vera Viewer',
      role: 'Viewer',
    });
    expect(invited.status, JSON.stringify(invited.body)).toBe(201);
    const link = `${mesh.dashboardUrl}enroll#${new URLSearchParams({
      email: 'viewer@accounting.example',
      token: invited.body.enrollmentToken,
    }).toString()}`;
    const viewer = await enrolledPage(browser, link, { viewport: { width: 1024, height: 900 } });
    await viewer.goto(`${mesh.dashboardUrl}accounting`);
    await heading(viewer, 'Accounting');
    await viewer.waitForSelector('[data-testid="datev-exports"] tbody tr');
    expect(await viewer.$('[data-testid="datev-start"]')).toBeNull();
    expect(await viewer.$('[data-testid="gdpdu-start"]')).toBeNull();
    expect(await viewer.$('[data-testid^="datev-download-"]')).toBeNull();
    expect(await viewer.$('#integrity')).toBeNull();
    await noSeriousViolations(viewer, 'accounting-viewer');
  });
});
