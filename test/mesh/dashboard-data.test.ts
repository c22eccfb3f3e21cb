import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BootstrapResult } from '../../deploy/local/bootstrap-lib.mjs';
import { inPage, innerText, launchBrowser, seriousA11yViolations, type TestBrowser } from '../support/browser';
import { applyWalkthroughTo, enrolledPage, waitForHeading } from '../support/dashboard';
import { validateEInvoices } from '../support/einvoice-kit';
import { api, eventually, startTestMesh, type TestMesh } from '../support/mesh';

const ROWS = 1000;
const BAD_ROW = 437;

/** A clients CSV of ROWS rows; `bad` puts an invalid e-mail in data row BAD_ROW (spreadsheet row BAD_ROW + 1). */
function clientsCsv(bad: boolean): string {
  const lines = ['name,email'];
  for (let i = 1; i <= ROWS; i++)
    lines.push(`Imported Client ${i},${bad && i === BAD_ROW ? 'not-an-email' : `client${i}@import.example`}`);
  return `${lines.join('\n')}\n`;
}

/**
 * The walk-through organization of `pnpm bootstrap` (the same settings) issues an invoice whose
 * XRechnung passes the official validator; and in Chromium: a CSV import of 1,000 clients refused
 * for its one bad row with nothing written, then imported with its progress bar at 100 %, an export
 * downloaded, the invoicing settings naming the missing telephone that blocks XRechnung until it is
 * set, and a buyer's magic link created and copied; axe-core at 768 px and wide.
 */
describe('dashboard data import/export and invoicing settings in Chromium', () => {
  let mesh: TestMesh;
  let browser: TestBrowser;
  let boot: BootstrapResult;
  let admin: Page;
  const work = mkdtempSync(join(tmpdir(), 'paymesh-dashboard-data-'));
  const buyer = 'rechnung@kaeufer.example';
  /** The browser's download folder. */
  const downloads = join(work, 'downloads');

  const adminCall = (method: string, path: string, body?: unknown) =>
    api(method, `${mesh.adminBaseUrl}${path}`, { token: boot.apiKey, ...(body !== undefined ? { body } : {}) });
  const clientTotal = async () => (await adminCall('GET', '/clients?limit=1')).body.total as number;

  async function noSeriousViolations(page: Page, name: string): Promise<void> {
    await browser.screenshot(page, name);
    expect(await seriousA11yViolations(page), name).toEqual([]);
  }

  async function accessibleAt768(page: Page, name: string): Promise<void> {
    await page.setViewport({ width: 768, height: 1000 });
    await noSeriousViolations(page, `${name}-768`);
    await page.setViewport({ width: 1280, height: 900 });
    await noSeriousViolations(page, `${name}-wide`);
  }

  beforeAll(async () => {
    mesh = await startTestMesh();
    boot = await mesh.bootstrap();
    await applyWalkthroughTo(mesh, boot);
    browser = await launchBrowser('dashboard-data');
    admin = await enrolledPage(browser, boot.enrollmentLink as string, { downloads });
  });

  afterAll(async () => {
    await browser?.close();
    await mesh?.dispose();
    rmSync(work, { recursive: true, force: true });
  });

  it("the walk-through organization's invoice downloads as an XRechnung that passes the validator", async () => {
    const readiness = await adminCall('GET', '/organizations/settings/invoicing/einvoice-readiness');
    expect(readiness.body.formats).toContainEqual({ format: 'xrechnung', allowed: true, ready: true, missing: [] });
    const client = await adminCall('POST', '/clients', {
      name: 'Käufer AG',
      email: buyer,
      address: { street: 'Marktplatz 5', city: 'München', postalCode: '80331', country: 'DE' },
    });
    expect(client.status, JSON.stringify(client.body)).toBe(201);
    const draft = await adminCall('POST', '/invoices', {
      siteId: boot.siteId,
      clientId: client.body.id,
      currency: 'EUR',
      paymentTermsDays: 14,
      items: [
        { description: 'Consulting, March', quantity: 3, unitPrice: 30000, amountType: 'net', itemType: 'service' },
      ],
    });
    expect(draft.status, JSON.stringify(draft.body)).toBe(201);
    const issued = await adminCall('POST', `/invoices/${draft.body.id}/issue`);
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    const res = await fetch(`${mesh.adminBaseUrl}/invoices/${draft.body.id}/xml`, {
      headers: { authorization: `Bearer ${boot.apiKey}` },
    });
    const xml = Buffer.from(await res.arrayBuffer());
    expect(res.status, xml.toString()).toBe(200);
    const file = join(work, 'walkthrough-xrechnung.xml');
    writeFileSync(file, xml);
    const [verdict] = await validateEInvoices('xrechnung-ubl', [file]);
    expect(verdict?.fatal).toEqual([]);
    expect(verdict?.valid).toBe(true);
  });

  it('a CSV of 1,000 clients with one bad row is refused row by row, nothing written; fixed, it imports with the bar at 100 %', async () => {
    const before = await clientTotal();
    await admin.click('a[href="/app/data"]');
    await waitForHeading(browser, admin, 'Data import and export');
    await admin.waitForSelector('#import-file');
    await accessibleAt768(admin, 'data');

    const badFile = join(work, 'clients-bad.csv');
    writeFileSync(badFile, clientsCsv(true));
    const input = await admin.$('#import-file');
    await input!.uploadFile(badFile);
    await admin.waitForSelector('[data-testid="import-report"][data-invalid="1"]', { timeout: 30_000 });
    const errors = await innerText(admin, '[data-testid="import-errors"]');
    expect(errors).toContain(String(BAD_ROW + 1));
    expect(errors).toContain('email');
    expect(await admin.$('[data-testid="import-start"]')).toBeNull();
    await noSeriousViolations(admin, 'data-refused');
    expect(await clientTotal()).toBe(before);

    const goodFile = join(work, 'clients.csv');
    writeFileSync(goodFile, clientsCsv(false));
    await (await admin.$('#import-file'))!.uploadFile(goodFile);
    await admin.waitForSelector('[data-testid="import-report"][data-invalid="0"]', { timeout: 30_000 });
    await admin.click('[data-testid="import-start"]');
    await admin.waitForSelector('[data-testid="import-progress"]');
    await admin.waitForSelector('[data-testid="import-progress"][data-status="completed"]', { timeout: 60_000 });
    const bar = await inPage<{ value: number; max: number; percent: string | null }>(
      admin,
      `(() => { const p = document.querySelector('#import-progress-bar'); return { value: p.value, max: p.max, percent: document.querySelector('[data-testid="import-progress"]').dataset.percent }; })()`,
    );
    expect(bar).toEqual({ value: ROWS, max: ROWS, percent: '100' });
    expect(await innerText(admin, '[data-testid="import-progress"]')).toContain('1,000 records created');
    expect(await clientTotal()).toBe(before + ROWS);
    await noSeriousViolations(admin, 'data-imported');
  });

  it('an export of the clients downloads as CSV', async () => {
    await admin.select('#export-entity', 'clients');
    await admin.click('[data-testid="export-start"]');
    const csv = await eventually(() => {
      let files: string[] = [];
      try {
        files = readdirSync(downloads);
      } catch {
        return undefined;
      }
      const name = files.find((f) => /^clients-.*\.csv$/.test(f));
      return name && !files.some((f) => f.endsWith('.crdownload'))
        ? readFileSync(join(downloads, name), 'utf8')
        : undefined;
    }, 30_000);
    expect(csv).toContain('Imported Client 1000');
    expect(csv).toContain('Käufer AG');
  });

  it('the invoicing settings name the missing telephone that blocks XRechnung, and nothing once it is set', async () => {
    const cleared = await adminCall('PUT', '/organizations/settings/invoicing', { companyPhone: null });
    expect(cleared.status, JSON.stringify(cleared.body)).toBe(200);
    await admin.goto(`${mesh.dashboardUrl}settings/invoicing`);
    await waitForHeading(browser, admin, 'Invoicing');
    await admin.waitForSelector('[data-testid="readiness-xrechnung"][data-ready="false"]');
    expect(await innerText(admin, '[data-testid="readiness-xrechnung"]')).toContain('invoicing.companyPhone');
    expect(await admin.$eval('[data-testid="readiness-zugferd"]', (e) => e.getAttribute('data-ready'))).toBe('true');
    expect(await innerText(admin, '[data-testid="iban-masked"]')).toMatch(/^DE89 .*30 00$/);
    await accessibleAt768(admin, 'invoicing-settings');

    await admin.type('#company-phone', '+49 30 7654321');
    await admin.click('#company-form button[type="submit"]');
    await admin.waitForSelector('[data-testid="readiness-xrechnung"][data-ready="true"]');
    expect(await innerText(admin, '[data-testid="einvoice-readiness"]')).not.toContain('invoicing.companyPhone');
    expect((await adminCall('GET', '/organizations/settings/invoicing')).body.companyPhone).toBe('+49 30 7654321');

    // The numbering preview: the number after the walk-through's invoice, then the layout being edited.
    const issuedNumber = (await adminCall('GET', '/invoices?limit=1')).body.items[0].number as string;
    const next = issuedNumber.replace(/\d+$/, (d) => String(Number(d) + 1).padStart(d.length, '0'));
    await admin.waitForFunction(
      `document.querySelector('[data-testid="number-preview"] code')?.textContent === ${JSON.stringify(next)}`,
    );
    await admin.click('#invoice-prefix', { count: 3 });
    await admin.type('#invoice-prefix', 'ACME');
    await admin.select('#invoice-period', 'none');
    await admin.waitForFunction(
      `document.querySelector('[data-testid="number-preview"] code')?.textContent === 'ACME-00001'`,
    );
    // Document e-mails: replies go to the address set here.
    await admin.type('#emails-reply-to', 'replies@demo-shop.example');
    await admin.click('#emails-form button[type="submit"]');
    await eventually(
      async () =>
        (await adminCall('GET', '/organizations/settings/invoicing')).body.documents.replyToEmail ===
          'replies@demo-shop.example' || undefined,
      10_000,
    );
  });

  it("a buyer's magic link is created, shows its expiry and is copied", async () => {
    await admin
      .browserContext()
      .overridePermissions(new URL(mesh.dashboardUrl).origin, [
        'clipboard-read',
        'clipboard-write',
        'clipboard-sanitized-write',
      ]);
    await admin.type('#magic-email', buyer);
    await admin.type('#magic-ttl', '30');
    await admin.click('#magic-link-form button[type="submit"]');
    await admin.waitForSelector('[data-testid="magic-link-url"]');
    const url = await innerText(admin, '[data-testid="magic-link-url"]');
    expect(url).toMatch(/\/magic-link#token=.+/);
    expect(await innerText(admin, '[data-testid="magic-link"]')).toMatch(/expires/);
    await admin.click('[data-testid="magic-link"] button');
    await admin.waitForFunction(
      `document.querySelector('[data-testid="magic-link"]')?.textContent?.includes('Copied')`,
    );
    expect(await inPage<string>(admin, 'navigator.clipboard.readText()')).toBe(url);
    await noSeriousViolations(admin, 'magic-link');
  });
});
