import { mkdirSync } from 'node:fs';
import type { Page } from 'puppeteer-core';
import { applyWalkthrough, type BootstrapResult } from '../../deploy/local/bootstrap-lib.mjs';
import { pageWithAuthenticator, type TestBrowser } from './browser';
import type { TestMesh } from './mesh';

/** Helpers of the dashboard's browser tests (a signed-in member is a page with a passkey). */

/** Waits for the screen whose main heading holds `text`; on a timeout the error says what the page shows. */
export function waitForHeading(browser: TestBrowser, page: Page, text: string): Promise<unknown> {
  return page
    .waitForFunction(`document.querySelector('h1')?.textContent?.includes(${JSON.stringify(text)})`, {
      timeout: 20_000,
    })
    .catch(async (err: unknown) => {
      await browser.screenshot(page, 'failed');
      const shown = await page.evaluate('document.body.innerText + " @ " + location.href');
      throw new Error(`no heading "${text}" (${String(err)}); the page shows: ${String(shown)}`);
    });
}

/**
 * An Admin's page invites a member on the Settings screen; the member opens the one-time link on
 * a page of its own, registers a passkey and lands on the overview. Answers that page and the link.
 */
export async function inviteMember(
  browser: TestBrowser,
  admin: Page,
  dashboard: string,
  member: { email: string; name: string; role: 'Admin' | 'Editor' | 'Viewer' },
): Promise<{ page: Page; link: string }> {
  await admin.goto(`${dashboard}settings`);
  await waitForHeading(browser, admin, 'Settings');
  await admin.type('#inv-email', member.email);
  await admin.type('#inv-name', member.name);
  await admin.select('#inv-role', member.role);
  await admin.click('#members button[type="submit"]');
  await admin.waitForSelector('[data-testid="enrollment-link"]');
  const link = await admin.$eval('[data-testid="enrollment-link"]', (e) => (e.textContent ?? '').trim());
  const page = await enrolledPage(browser, link);
  return { page, link };
}

/**
 * A member signed in through a one-time enrollment link (the bootstrap's `enrollmentLink` for its
 * Admin): a page with a passkey that registers it and lands on the overview. With `downloads`, the
 * files the page downloads go to that folder.
 */
export async function enrolledPage(
  browser: TestBrowser,
  link: string,
  options: { viewport?: { width: number; height: number }; downloads?: string } = {},
): Promise<Page> {
  const page = await pageWithAuthenticator(browser, options.viewport);
  if (options.downloads) await downloadsTo(browser, page, options.downloads);
  await page.goto(link);
  await waitForHeading(browser, page, 'Set up your passkey');
  await page.click('main button');
  await waitForHeading(browser, page, 'Overview');
  return page;
}

/** The files a page's browser context downloads land in `dir` (created if missing). */
export async function downloadsTo(browser: TestBrowser, page: Page, dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const cdp = await browser.browser.target().createCDPSession();
  await cdp.send('Browser.setDownloadBehavior', {
    behavior: 'allow',
    downloadPath: dir,
    browserContextId: page.browserContext().id,
  });
}

/** The walk-through settings of `pnpm bootstrap` (tax, invoicing, buyer portal) on a mesh's bootstrapped organization. */
export async function applyWalkthroughTo(mesh: TestMesh, boot: BootstrapResult): Promise<void> {
  await applyWalkthrough({
    adminBaseUrl: mesh.adminBaseUrl,
    publicBaseUrl: mesh.publicBaseUrl,
    apiKey: boot.apiKey,
    organizationId: boot.organizationId,
  });
}
