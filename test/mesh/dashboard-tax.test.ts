import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'puppeteer-core';
import { create } from 'xmlbuilder2';
import { WALKTHROUGH_INVOICING } from '../../deploy/local/bootstrap-lib.mjs';
import { ARTIFACTS_DIR, innerText, launchBrowser, seriousA11yViolations, type TestBrowser } from '../support/browser';
import { enrolledPage, waitForHeading } from '../support/dashboard';
import { api, eventually, startTestMesh, type TestMesh } from '../support/mesh';

/**
 * The tax screens of the merchant dashboard in Chromium against the whole mesh: an Admin sets the
 * tax settings (German seller with OSS), tells managed from custom rates, sees what replace-defaults
 * would change before confirming it, rebuilds the ledger and follows its progress bar to 100 %, and
 * opens the VAT OSS return of the quarter of a French sale, downloading its OSS XML and ELSTER CSV.
 * axe-core at 768 px and wide. Screenshots and downloads go to .run/artifacts/dashboard-tax/.
 */
describe('merchant dashboard: tax screens in Chromium', () => {
  let mesh: TestMesh;
  let browser: TestBrowser;
  let boot: Awaited<ReturnType<TestMesh['bootstrap']>>;
  let admin: Page;
  const downloads = join(ARTIFACTS_DIR, 'dashboard-tax', 'downloads');
  const now = new Date();
  const year = now.getUTCFullYear();
  const quarter = Math.floor(now.getUTCMonth() / 3) + 1;

  const adminApi = (method: string, path: string, body?: unknown) =>
    api(method, `${mesh.adminBaseUrl}${path}`, { token: boot.apiKey, ...(body !== undefined ? { body } : {}) });
  const heading = (page: Page, text: string) => waitForHeading(browser, page, text);
  const waitText = (page: Page, selector: string, text: string) =>
    page.waitForFunction(
      `document.querySelector(${JSON.stringify(selector)})?.textContent?.includes(${JSON.stringify(text)})`,
      { timeout: 20_000 },
    );

  async function accessible(page: Page, name: string): Promise<void> {
    for (const width of [1280, 768]) {
      await page.setViewport({ width, height: 900 });
      await browser.screenshot(page, `${name}-${width}`);
      expect(await seriousA11yViolations(page), `${name} at ${width}px`).toEqual([]);
    }
    await page.setViewport({ width: 1280, height: 900 });
  }

  /** Clicks a download button and answers the text of the file the browser saved. */
  async function downloaded(page: Page, selector: string, ext: string): Promise<string> {
    const before = new Set(readdirSync(downloads));
    await page.click(selector);
    const name = await eventually(async () => {
      const refused = await innerText(page, '#tax-report [role="alert"]');
      if (refused) throw new Error(`download ${selector} refused: ${refused}`);
      return readdirSync(downloads).find((f) => !before.has(f) && f.endsWith(`.${ext}`) && !f.endsWith('.crdownload'));
    });
    return readFileSync(join(downloads, name), 'utf8');
  }

  beforeAll(async () => {
    mesh = await startTestMesh();
    boot = await mesh.bootstrap();
    const settings = await adminApi('PUT', '/organizations/settings/invoicing', WALKTHROUGH_INVOICING);
    expect(settings.status, JSON.stringify(settings.body)).toBe(200);
    browser = await launchBrowser('dashboard-tax');
    admin = await enrolledPage(browser, boot.enrollmentLink as string, { downloads });
  });

  afterAll(async () => {
    await browser?.close();
    await mesh?.dispose();
  });

  it('an Admin sets the home country, OSS and VIES, the price mode and rounding in the tax settings', async () => {
    await admin.click('nav.side a[href="/app/tax"]');
    await heading(admin, 'Tax');
    await admin.waitForSelector('#tax-home-country');
    await admin.type('#tax-home-country', 'de');
    await admin.click('#tax-ossEnabled');
    await admin.click('#tax-viesEnabled');
    await admin.select('#tax-price-mode', 'net');
    await admin.select('#tax-rounding-method', 'half_even');
    await admin.click('[data-testid="tax-settings-save"]');
    await admin.waitForSelector('[data-testid="tax-settings-saved"]');
    const saved = await adminApi('GET', '/organizations/settings/tax');
    expect(saved.body).toMatchObject({
      homeCountry: 'DE',
      ossEnabled: true,
      viesEnabled: true,
      iossEnabled: false,
      priceMode: 'net',
      rounding: { method: 'half_even' },
    });
    // Invoices below state gross prices.
    expect((await adminApi('PUT', '/organizations/settings/tax', { priceMode: 'gross' })).status).toBe(200);
  });

  it('rates tell managed from custom; replace-defaults previews what it changes, then restores a deleted default', async () => {
    const custom = await adminApi('POST', '/tax-rates', {
      code: 'DE_SHOP_EBOOKS',
      country: 'DE',
      rateType: 'reduced',
      percent: 7,
      categories: ['ebooks'],
      validFrom: '2025-01-01',
    });
    expect(custom.status, JSON.stringify(custom.body)).toBe(201);
    const fr = await adminApi('GET', '/tax-rates?country=FR&rateType=standard&managed=true&limit=1');
    const gone = fr.body.items[0] as { id: string; code: string };
    expect((await adminApi('DELETE', `/tax-rates/${gone.id}`)).status).toBe(204);
    const total = (await adminApi('GET', '/tax-rates?limit=1')).body.total as number;

    await admin.reload();
    await heading(admin, 'Tax');
    await admin.select('#rates-managed', 'false');
    await waitText(admin, '[data-testid="tax-rates"] tbody', 'DE_SHOP_EBOOKS');
    expect(
      await admin.$$eval('[data-testid="tax-rates"] [data-managed]', (b) =>
        b.map((e) => e.getAttribute('data-managed')),
      ),
    ).toEqual(['false']);
    expect(await innerText(admin, '[data-testid="tax-rates"] tbody')).toContain('Custom');
    await admin.select('#rates-managed', 'true');
    await admin.waitForFunction(
      `[...document.querySelectorAll('[data-testid="tax-rates"] [data-managed]')].every((e) => e.getAttribute('data-managed') === 'true') && document.querySelectorAll('[data-testid="tax-rates"] [data-managed]').length > 1`,
      { timeout: 20_000 },
    );

    await admin.click('[data-testid="rates-defaults-preview"]');
    await admin.waitForSelector('[data-testid="rates-preview"]');
    const changes = await admin.$$eval('[data-testid="rates-preview-changes"] li', (l) =>
      l.map((e) => [e.getAttribute('data-change'), e.textContent ?? '']),
    );
    expect(changes).toHaveLength(1);
    expect(changes[0]?.[0]).toBe('create');
    expect(changes[0]?.[1]).toContain(gone.code);
    // Only a preview so far: nothing written.
    expect((await adminApi('GET', '/tax-rates?limit=1')).body.total).toBe(total);
    await accessible(admin, 'tax-replace-preview');
    await admin.click('[data-testid="rates-defaults-confirm"]');
    await waitText(admin, '[data-testid="rates-defaults-done"]', '1 created');
    expect((await adminApi('GET', '/tax-rates?limit=1')).body.total).toBe(total + 1);
    const kept = await adminApi('GET', `/tax-rates/${custom.body.id}`);
    expect(kept.body).toMatchObject({ managed: false, percent: 7 });
  });

  it('a ledger rebuild shows its progress bar until it reaches 100 %', async () => {
    // A French consumer's invoice: VAT of France under OSS.
    const client = await adminApi('POST', '/clients', {
      name: 'Camille Acheteur',
      email: 'camille@buyer.example',
      address: { street: 'Rue 1', city: 'Lyon', postalCode: '69001', country: 'FR' },
    });
    expect(client.status, JSON.stringify(client.body)).toBe(201);
    const draft = await adminApi('POST', '/invoices', {
      siteId: boot.siteId,
      clientId: client.body.id,
      currency: 'EUR',
      items: [
        { description: 'Pro plan', quantity: 1, unitPrice: 12000, amountType: 'gross', itemType: 'digital_service' },
      ],
    });
    expect(draft.status, JSON.stringify(draft.body)).toBe(201);
    expect((await adminApi('POST', `/invoices/${draft.body.id}/issue`)).status).toBe(200);
    await eventually(async () => (await adminApi('GET', '/tax/records?limit=1')).body.total >= 1, 30_000);

    await admin.click('nav.subnav a[href="/app/tax/records"]');
    await heading(admin, 'Tax records');
    await waitText(admin, '[data-testid="tax-records"] tbody', 'FR');
    // Filters go to the server: no reversal yet, the sale is an accrual entry of an invoice.
    await admin.select('#records-entryType', 'reversal');
    await admin.click('#tax-records form button[type="submit"]');
    await waitText(admin, '#tax-records', 'No tax records match.');
    await admin.select('#records-entryType', 'sale');
    await admin.select('#records-sourceKind', 'invoice');
    await admin.click('#tax-records form button[type="submit"]');
    await waitText(admin, '[data-testid="tax-records"] tbody', 'Accrual');
    await admin.click('[data-testid="rebuild-start"]');
    await admin.waitForSelector('[data-testid="rebuild-progress"][data-status="completed"]', { timeout: 30_000 });
    expect(await innerText(admin, '[data-testid="rebuild-percent"]')).toBe('100 %');
    expect(await admin.$eval('#rebuild-progress-bar', (e) => [e.getAttribute('value'), e.getAttribute('max')])).toEqual(
      ['100', '100'],
    );
    await accessible(admin, 'tax-records');
  });

  it('the VAT OSS return of the quarter lists France; its OSS XML and ELSTER CSV download', async () => {
    await admin.click('nav.subnav a[href="/app/tax/reports"]');
    await heading(admin, 'Tax reports');
    await admin.select('#report-kind', 'vat-oss');
    await admin.waitForSelector('#report-quarter');
    await admin.select('#report-quarter', String(quarter));
    await admin.click('[data-testid="report-show"]');
    await admin.waitForSelector('[data-testid="tax-report"] [data-country="FR"]');
    expect(await innerText(admin, '[data-testid="tax-report"] [data-country="FR"]')).toBe('€20.00');
    await admin.waitForSelector('#tax-report .chart canvas');
    expect(await innerText(admin, '[data-testid="tax-chart"] figcaption')).toContain(`Q${quarter} ${year}: VAT €20.00`);

    const xml = await downloaded(admin, '[data-testid="download-xml"]', 'xml');
    const ret = (create(xml).end({ format: 'object' }) as { CoreVatReturn: Record<string, any> }).CoreVatReturn;
    expect(ret.period).toEqual({ year: String(year), quarter: String(quarter) });
    const supply = ret.msconSupplies.msconSupply;
    expect([supply.msconCountryCode, supply.balanceOfVatDue]).toEqual(['FR', '20.00']);
    const elster = await downloaded(admin, '[data-testid="download-elster"]', 'csv');
    expect(elster).toBe(['#v2.0', '1,FR', '2,FR,STANDARD,20.00,100.00,20.00', ''].join('\n'));
    await accessible(admin, 'tax-vat-oss');

    // A range report: its table, and a chart of the months of the range.
    await admin.select('#report-kind', 'by-country');
    await admin.waitForSelector('#report-from');
    await admin.click('[data-testid="report-show"]');
    await waitText(admin, '[data-testid="tax-report"] tbody', 'FR');
    await waitText(admin, '[data-testid="tax-chart"] figcaption', 'Tax €20.00, Net €100.00');
  });
});
