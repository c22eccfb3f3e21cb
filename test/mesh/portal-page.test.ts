import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HTTPResponse, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../deploy/local/supervisor.mjs';
import type { BootstrapResult } from '../../deploy/local/bootstrap-lib.mjs';
import { inPage, innerText, isShown, launchBrowser, seriousA11yViolations, type TestBrowser } from '../support/browser';
import { MailCatcherClient } from '../support/mail-catcher';
import { api, eventually, startTestMesh, type TestMesh } from '../support/mesh';

const MESSAGES_DIR = join(ROOT, 'services', 'gateway-public', 'web', 'messages');
const en = JSON.parse(readFileSync(join(MESSAGES_DIR, 'en.json'), 'utf8')) as Record<string, string>;
const de = JSON.parse(readFileSync(join(MESSAGES_DIR, 'de.json'), 'utf8')) as Record<string, string>;
/** Short session tokens, so the page has to renew them through the refresh cookie. */
const SESSION_TTL_SECONDS = 8;

const eur = (minor: number, locale = 'en') =>
  new Intl.NumberFormat(locale, { style: 'currency', currency: 'EUR' }).format(minor / 100);

/**
 * The buyer portal page in Chromium against the whole mesh: gateway-public serves it at
 * /portal/<organizationId> (and /portal/magic-link, where magic links land); the buyer signs in
 * with the code read from the mail catcher (real SMTP), sees and downloads the invoice, sees the
 * subscription's upcoming charges, cancels it, survives an expired session token through the
 * refresh cookie and logs out. Screenshots of each step go to .run/artifacts/portal-page/.
 */
describe('buyer portal page (Chromium)', () => {
  let mesh: TestMesh;
  let A: BootstrapResult;
  let catcher: MailCatcherClient;
  let browser: TestBrowser;
  let root: string;
  const buyer = `erika-${Date.now()}@example.test`;
  let invoice: { id: string; number: string };
  let scheduleId: string;
  let page: Page;
  /** Session tokens the page received (verify-otp, magic-link, refresh), newest last. */
  const tokens: string[] = [];
  const errors: string[] = [];

  const admin = (method: string, p: string, body?: unknown) =>
    api(method, `${mesh.adminBaseUrl}${p}`, { token: A.apiKey, ...(body !== undefined ? { body } : {}) });
  const pub = (p: string, token?: string) => api('GET', `${mesh.publicBaseUrl}${p}`, token ? { token } : {});

  async function open(url: string, opts: { width?: number; acceptLanguage?: string } = {}): Promise<Page> {
    const p = await browser.page({
      width: opts.width ?? 360,
      height: 740,
      ...(opts.acceptLanguage ? { acceptLanguage: opts.acceptLanguage } : {}),
    });
    p.on('console', (msg) => {
      if (msg.type() === 'error' && !/Failed to load resource/.test(msg.text())) errors.push(msg.text());
    });
    p.on('pageerror', (err) => errors.push(String(err)));
    p.on('response', (res) => {
      if (/\/portal\/auth\/(verify-otp|magic-link|refresh)$/.test(res.url()) && res.status() === 200) {
        void res.json().then(
          (b: { token?: string }) => b.token && tokens.push(b.token),
          () => undefined,
        );
      }
    });
    await p.goto(url, { waitUntil: 'domcontentloaded' });
    return p;
  }

  const waitShown = (p: Page, selector: string, timeoutMs = 20_000) =>
    eventually(async () => ((await isShown(p, selector)) ? true : undefined), timeoutMs);
  const waitText = (p: Page, selector: string, want: (text: string) => boolean, timeoutMs = 20_000) =>
    eventually(async () => {
      const got = await innerText(p, selector).catch(() => '');
      return want(got) ? got : undefined;
    }, timeoutMs);
  const activeId = (p: Page) =>
    inPage<string>(p, 'document.activeElement ? document.activeElement.id || document.activeElement.tagName : ""');

  async function newestCode(email: string, before: number): Promise<string> {
    const messages = await eventually(async () => {
      const got = await catcher.to(email);
      return got.length > before ? got : undefined;
    }, 20_000);
    const m = /code is (\d{6})/.exec(messages[0]!.text);
    if (!m) throw new Error(`no code in: ${messages[0]!.text}`);
    return m[1]!;
  }

  /**
   * Clicks a download button and answers the bytes of the file the browser saved (the page fetches
   * it with the session token and hands it over as a download).
   */
  async function downloadVia(p: Page, selector: string, path: string): Promise<Buffer> {
    const dir = await mkdtemp(join(tmpdir(), 'portal-download-'));
    try {
      const cdp = await p.createCDPSession();
      await cdp.send('Page.setDownloadBehavior', { behavior: 'allow', downloadPath: dir });
      const answer = p.waitForResponse((r: HTTPResponse) => r.url().includes(path) && r.status() !== 401, {
        timeout: 30_000,
      });
      await p.click(selector);
      const res = await answer;
      expect(res.status()).toBe(200);
      expect(res.headers()['content-type']).toBe('application/pdf');
      const file = await eventually(async () => (await readdir(dir)).find((f) => f.endsWith('.pdf')), 20_000);
      return await eventually(async () => {
        const bytes = await readFile(join(dir, file));
        return bytes.length > 0 ? bytes : undefined;
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  beforeAll(async () => {
    mesh = await startTestMesh({
      env: { EMAIL_POLL_INTERVAL_MS: '100', PORTAL_SESSION_TTL_SECONDS: String(SESSION_TTL_SECONDS) },
    });
    root = mesh.publicRootUrl;
    const url = mesh.sandboxUrls['sandbox-mail'];
    if (!url) throw new Error('the mail catcher did not start with the mesh');
    catcher = new MailCatcherClient(url);
    A = await mesh.bootstrap();
    expect(
      (
        await admin('PUT', '/organizations/settings/tax', {
          homeCountry: 'DE',
          vatId: 'DE136695976',
          viesEnabled: false,
        })
      ).status,
    ).toBe(200);
    const settings = await admin('PUT', '/organizations/settings/invoicing', {
      companyName: 'Muster Software GmbH',
      companyAddress: { street: 'Hauptstraße 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
      companyEmail: 'billing@muster.example',
      bankIBAN: { plaintext: 'DE89370400440532013000' },
    });
    expect(settings.status, JSON.stringify(settings.body)).toBe(200);
    const portal = await admin('PUT', '/organizations/settings/portal', { enabled: true, magicLinksEnabled: true });
    expect(portal.status, JSON.stringify(portal.body)).toBe(200);
    const client = await admin('POST', '/clients', {
      name: 'Käufer AG',
      email: buyer,
      address: { street: 'Marktplatz 5', city: 'München', postalCode: '80331', country: 'DE' },
    });
    expect(client.status, JSON.stringify(client.body)).toBe(201);
    const draft = await admin('POST', '/invoices', {
      siteId: A.siteId,
      clientId: client.body.id,
      currency: 'EUR',
      paymentTermsDays: 14,
      items: [
        { description: 'Consulting, March', quantity: 3, unitPrice: 30000, amountType: 'net', itemType: 'service' },
      ],
    });
    expect(draft.status, JSON.stringify(draft.body)).toBe(201);
    const issued = await admin('POST', `/invoices/${draft.body.id}/issue`);
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    invoice = { id: draft.body.id as string, number: issued.body.number as string };
    const schedule = await admin('POST', '/invoices/recurring', {
      startDate: '2027-01-31',
      interval: 'month',
      template: {
        siteId: A.siteId,
        clientId: client.body.id,
        currency: 'EUR',
        paymentTermsDays: 14,
        items: [
          {
            description: 'Hosting plan',
            quantity: 1,
            unitPrice: 11900,
            amountType: 'gross',
            itemType: 'digital_service',
          },
        ],
      },
    });
    expect(schedule.status, JSON.stringify(schedule.body)).toBeLessThan(300);
    scheduleId = schedule.body.id as string;
    browser = await launchBrowser('portal-page');
  });

  afterAll(async () => {
    await browser?.close();
    await mesh?.dispose();
  });

  it('is served by gateway-public with a strict CSP and hashed assets, where magic links point', async () => {
    const res = await fetch(`${root}/portal/${A.organizationId}`, { headers: { 'accept-language': 'de-DE,de;q=0.9' } });
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await res.text();
    expect(html).toContain('<html lang="de">');
    expect(html).toContain(de['portal.heading']);
    expect(html).not.toMatch(/<script(?![^>]*(type="module" src=|type="application\/json"))/);
    expect(html).not.toMatch(/\sstyle=/);
    const script = /src="\.\.\/assets\/(portal-[A-Z0-9]+\.js)"/.exec(html)?.[1];
    expect(script).toBeTruthy();
    const asset = await fetch(`${root}/assets/${script}`, { headers: { 'accept-encoding': 'gzip' } });
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect((await fetch(`${root}/portal/not-an-organization`)).status).toBe(404);
    expect((await fetch(`${root}/portal/magic-link`)).status).toBe(200);
    // The Admin API's magic links land on this page.
    const link = await admin('POST', '/organizations/settings/portal/magic-links', { email: buyer, ttlMinutes: 10 });
    expect(link.status, JSON.stringify(link.body)).toBe(201);
    expect(link.body.url as string).toMatch(new RegExp(`^${root.replace(/[.]/g, '\\.')}/portal/magic-link#token=`));
  });

  it('signs in with the e-mailed code (the same answer for any address) at 360 px and lists the invoice', async () => {
    page = await open(`${root}/portal/${A.organizationId}`);
    await waitShown(page, '#email-form');
    await browser.screenshot(page, 'sign-in');
    expect(await seriousA11yViolations(page)).toEqual([]);

    // An address without anything to see gets the same sentence, and no e-mail.
    const nobody = `nobody-${Date.now()}@example.test`;
    await page.type('#email', nobody);
    await page.click('#email-submit');
    await waitShown(page, '#code-form');
    const sentToNobody = await innerText(page, '#code-sent');
    expect(sentToNobody).toBe(en['portal.codeSent']);
    await page.click('#other-email');
    await waitShown(page, '#email-form');

    const before = (await catcher.to(buyer)).length;
    await inPage(page, 'document.getElementById("email").value = ""');
    await page.type('#email', buyer);
    await page.click('#email-submit');
    await waitShown(page, '#code-form');
    expect(await innerText(page, '#code-sent')).toBe(sentToNobody);
    expect(await activeId(page)).toBe('code');
    const code = await newestCode(buyer, before);
    expect(await catcher.to(nobody)).toEqual([]);

    // A wrong code: a message with the request's reference, still on the code form.
    await page.type('#code', code === '000000' ? '111111' : '000000');
    await page.click('#code-submit');
    await waitText(page, '#notice-text', (t) => t === en['portal.codeWrong']);
    expect(await innerText(page, '#notice-ref')).toMatch(/^Reference for support: \S+/);
    await inPage(page, 'document.getElementById("code").value = ""');
    await page.type('#code', code);
    await page.click('#code-submit');
    await waitShown(page, '#documents');
    const row = `tr[data-document-id="${invoice.id}"]`;
    await page.waitForSelector(row);
    expect(await innerText(page, row)).toContain(invoice.number);
    expect(await innerText(page, '#account-email')).toContain(buyer);
    // The token lives in the script's memory: nothing in storage or the address bar.
    expect(await inPage<number>(page, 'localStorage.length + sessionStorage.length')).toBe(0);
    expect(page.url()).toBe(`${root}/portal/${A.organizationId}`);
    await browser.screenshot(page, 'documents');
    expect(await seriousA11yViolations(page)).toEqual([]);
  });

  it('downloads the invoice PDF with the session', async () => {
    const bytes = await downloadVia(
      page,
      `tr[data-document-id="${invoice.id}"] button[data-download="pdf"]`,
      `/portal/documents/${invoice.id}/pdf`,
    );
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('shows the subscription with its upcoming charges and tax estimates, and cancels it with a reason in an accessible dialog', async () => {
    const item = `li[data-subscription-id="${scheduleId}"]`;
    await waitShown(page, item);
    const token = tokens[tokens.length - 1]!;
    const upcoming = await pub(`/portal/subscriptions/${scheduleId}/upcoming?count=3`, token);
    expect(upcoming.status, JSON.stringify(upcoming.body)).toBe(200);
    const charges = upcoming.body.upcoming as { estimatedTotal: number; taxEstimate: number }[];
    expect(charges.length).toBeGreaterThan(0);
    const rows = await inPage<string[]>(
      page,
      `[...document.querySelectorAll(${JSON.stringify(`${item} table.upcoming tbody tr`)})].map((r) => r.innerText)`,
    );
    expect(rows).toHaveLength(charges.length);
    for (const [i, c] of charges.entries()) {
      expect(rows[i]).toContain(eur(c.estimatedTotal));
      expect(rows[i]).toContain(eur(c.taxEstimate));
    }
    expect(await innerText(page, `${item} .badge`)).toBe(en['portal.subscriptionStatus.active']);
    await browser.screenshot(page, 'subscriptions');

    // The dialog: labelled, focus inside, Escape closes it and focus returns to the button.
    const cancelButton = `${item} button[data-action="cancel"]`;
    await page.click(cancelButton);
    await page.waitForSelector('#cancel-dialog[open]');
    expect(await activeId(page)).toBe('cancel-reason');
    expect(await inPage<string>(page, 'document.getElementById("cancel-dialog").getAttribute("aria-labelledby")')).toBe(
      'cancel-title',
    );
    for (let i = 0; i < 4; i++) await page.keyboard.press('Tab');
    expect(
      await inPage<boolean>(page, 'document.getElementById("cancel-dialog").contains(document.activeElement)'),
    ).toBe(true);
    await page.keyboard.press('Escape');
    await eventually(async () =>
      (await inPage<boolean>(page, '!document.getElementById("cancel-dialog").open')) ? true : undefined,
    );
    expect(
      await inPage<boolean>(page, `document.activeElement === document.querySelector(${JSON.stringify(cancelButton)})`),
    ).toBe(true);
    expect((await admin('GET', `/invoices/recurring/${scheduleId}`)).body.status).toBe('active');

    await page.click(cancelButton);
    await page.waitForSelector('#cancel-dialog[open]');
    await page.type('#cancel-reason', 'Moving to another provider');
    await browser.screenshot(page, 'cancel-dialog');
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.click('#cancel-confirm');
    await page.waitForSelector(`${item} .badge[data-status="cancel_requested"]`);
    expect(await innerText(page, `${item} .badge`)).toBe(en['portal.subscriptionStatus.cancel_requested']);
    expect(await isShown(page, cancelButton)).toBe(false);
    expect(await innerText(page, '#subscription-status')).toContain(await innerText(page, `${item} h3`));
    const after = await admin('GET', `/invoices/recurring/${scheduleId}`);
    expect(after.body).toMatchObject({ status: 'cancel_requested', cancellationReason: 'Moving to another provider' });
    // The charges shown are those still to come after the cancellation.
    const left = await pub(`/portal/subscriptions/${scheduleId}/upcoming?count=3`, tokens[tokens.length - 1]!);
    expect(left.status, JSON.stringify(left.body)).toBe(200);
    await eventually(async () => {
      const shown = await inPage<number>(
        page,
        `document.querySelectorAll(${JSON.stringify(`${item} table.upcoming tbody tr`)}).length`,
      );
      return shown === (left.body.upcoming as unknown[]).length ? true : undefined;
    });
    await browser.screenshot(page, 'canceled');
  });

  it('keeps the sign-in through the refresh cookie once the session token has expired, then logs out', async () => {
    const token = tokens[tokens.length - 1]!;
    // The token the page holds expires (PORTAL_SESSION_TTL_SECONDS of the test mesh).
    await eventually(
      async () => ((await pub('/portal/session', token)).status === 401 ? true : undefined),
      (SESSION_TTL_SECONDS + 10) * 1000,
    );
    const refreshed = page.waitForResponse(
      (r) => r.url().endsWith('/portal/auth/refresh') && r.request().method() === 'POST',
      { timeout: 30_000 },
    );
    const bytes = await downloadVia(
      page,
      `tr[data-document-id="${invoice.id}"] button[data-download="pdf"]`,
      `/portal/documents/${invoice.id}/pdf`,
    );
    expect((await refreshed).status()).toBe(200);
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    expect(await isShown(page, '#notice')).toBe(false);
    const renewed = tokens[tokens.length - 1]!;
    expect(renewed).not.toBe(token);

    await page.click('#logout');
    await waitShown(page, '#email-form');
    expect(await isShown(page, '#documents')).toBe(false);
    expect(await innerText(page, '#notice-text')).toBe(en['portal.loggedOut']);
    // Neither the token nor the refresh cookie works any more.
    expect((await pub('/portal/session', renewed)).status).toBe(401);
    expect(
      await inPage<number>(page, `fetch('/api/v1/portal/auth/refresh', { method: 'POST' }).then((r) => r.status)`),
    ).toBe(401);
    await browser.screenshot(page, 'logged-out');
    expect(errors).toEqual([]);
  });

  it('lands logged in from a magic link, in German, without sending the token in any URL', async () => {
    const link = await admin('POST', '/organizations/settings/portal/magic-links', { email: buyer, ttlMinutes: 10 });
    expect(link.status, JSON.stringify(link.body)).toBe(201);
    const url = link.body.url as string;
    const token = new URL(url).hash.replace(/^#token=/, '');
    const p = await browser.page({ width: 1024, height: 800, acceptLanguage: 'de-DE,de;q=0.9' });
    const urls: string[] = [];
    p.on('request', (r) => urls.push(r.url()));
    p.on('pageerror', (err) => errors.push(String(err)));
    await p.goto(url, { waitUntil: 'domcontentloaded' });
    await waitShown(p, '#documents');
    await p.waitForSelector(`tr[data-document-id="${invoice.id}"]`);
    expect(await innerText(p, 'h1')).toBe(de['portal.heading']);
    // The subscriptions arrive by a call of their own, after the documents: wait for the badge.
    await waitText(
      p,
      `li[data-subscription-id="${scheduleId}"] .badge`,
      (t) => t === de['portal.subscriptionStatus.cancel_requested'],
    );
    expect(p.url()).toBe(`${root}/portal/magic-link`);
    // What went over the wire: request addresses without their fragment (the browser never sends it).
    expect(urls.map((u) => u.replace(/#.*$/, '')).filter((u) => u.includes(token))).toEqual([]);
    expect(urls.filter((u) => u.includes(token))).toEqual([url]);
    await browser.screenshot(p, 'magic-link-de');
    expect(await seriousA11yViolations(p)).toEqual([]);
    // The link works once.
    const again = await browser.page({ width: 360, height: 740 });
    await again.goto(url, { waitUntil: 'domcontentloaded' });
    await waitText(again, '#notice-text', (t) => t === en['portal.linkInvalid']);
    expect(await innerText(again, '#notice-ref')).toMatch(/^Reference for support: \S+/);
    expect(errors).toEqual([]);
  });
});
