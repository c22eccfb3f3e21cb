import type { Page } from 'puppeteer-core';
import { pageWithAuthenticator, type TestBrowser } from './browser';

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
  const page = await pageWithAuthenticator(browser);
  await page.goto(link);
  await waitForHeading(browser, page, 'Set up your passkey');
  await page.click('main button');
  await waitForHeading(browser, page, 'Overview');
  return { page, link };
}
