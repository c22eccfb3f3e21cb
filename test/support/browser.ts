import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { ROOT } from '../../deploy/local/supervisor.mjs';

/** Debian's Chromium, as the documents service uses it (CHROMIUM_PATH overrides). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Where browser tests write screenshots (git-ignored: .run/). */
export const ARTIFACTS_DIR = join(ROOT, '.run', 'artifacts');

export interface TestBrowser {
  browser: Browser;
  /** A fresh page (own cookies and storage) with a viewport of `width` CSS pixels. */
  page(opts?: { width?: number; height?: number; acceptLanguage?: string }): Promise<Page>;
  /** Writes a full-page PNG to .run/artifacts/<suite>/<nn>-<name>.png and answers its path. */
  screenshot(page: Page, name: string): Promise<string>;
  close(): Promise<void>;
}

export async function launchBrowser(suite: string): Promise<TestBrowser> {
  const profile = await mkdtemp(join(tmpdir(), 'paymesh-browser-test-'));
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-sync',
      `--user-data-dir=${profile}`,
    ],
  });
  // Each run starts with an empty folder: the screenshots are those of this run.
  const dir = join(ARTIFACTS_DIR, suite);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  let shot = 0;
  return {
    browser,
    async page(opts = {}) {
      const context = await browser.createBrowserContext();
      const page = await context.newPage();
      await page.setViewport({ width: opts.width ?? 1024, height: opts.height ?? 800 });
      if (opts.acceptLanguage) await page.setExtraHTTPHeaders({ 'accept-language': opts.acceptLanguage });
      return page;
    },
    async screenshot(page, name) {
      const path = join(dir, `${String(++shot).padStart(2, '0')}-${name}.png`);
      await page.screenshot({ path, fullPage: true });
      return path;
    },
    async close() {
      await browser.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/**
 * A page with its own cookies and a virtual platform authenticator (DevTools protocol) that
 * verifies the user, for the dashboard's passkey ceremonies; page errors go to the test's log.
 */
export async function pageWithAuthenticator(
  browser: TestBrowser,
  viewport: { width: number; height: number } = { width: 1280, height: 900 },
): Promise<Page> {
  const page = await browser.page(viewport);
  page.on('pageerror', (err) => console.error(`page error: ${String(err)}`));
  page.on('console', (m) => m.type() === 'error' && console.error(`page console: ${m.text()}`));
  const cdp = await page.createCDPSession();
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return page;
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

const AXE_SOURCE = readFileSync(join(ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

/** Evaluates a JavaScript expression in the page (test code runs in Node; the page's types stay there). */
export function inPage<T>(page: Page, expression: string): Promise<T> {
  return page.evaluate(expression) as Promise<T>;
}

/** The rendered text of the first element matching `selector`, trimmed; '' when there is none. */
export function innerText(page: Page, selector: string): Promise<string> {
  return inPage<string>(
    page,
    `(() => { const e = document.querySelector(${JSON.stringify(selector)}); return e ? e.innerText.trim() : ''; })()`,
  );
}

/** Whether the first element matching `selector` is rendered (not hidden, not inside a hidden parent). */
export function isShown(page: Page, selector: string): Promise<boolean> {
  return inPage<boolean>(
    page,
    `(() => { const e = document.querySelector(${JSON.stringify(selector)}); return !!e && !e.hidden && e.offsetParent !== null; })()`,
  );
}

/**
 * Runs axe-core in the page (evaluated over the DevTools protocol, so the page's CSP stays as it
 * is) and answers the serious and critical violations, each as `id: help (targets)`.
 */
export async function seriousA11yViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = await inPage<AxeViolation[]>(
    page,
    `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)`,
  );
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')})`);
}
