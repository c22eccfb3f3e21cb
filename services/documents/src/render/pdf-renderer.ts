import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { UnavailableError, type Logger } from '@paymesh/core';

/** Flags Chromium needs on the servers (no sandbox user namespaces, no GPU, no network chatter). */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface PdfRendererOptions {
  executablePath: string;
  /** Pages open at most (renders in parallel). */
  pages: number;
  /** Renders waiting for a page at most; more are refused with UnavailableError (back-pressure). */
  maxQueue: number;
  /** One render at most (ms). */
  timeoutMs: number;
  logger: Logger;
}

/**
 * HTML -> PDF with one long-lived Chromium and a small pool of reusable pages. The browser starts
 * on first use and is started again, with a fresh profile, when it dies.
 */
export class PdfRenderer {
  private browser: Promise<Browser> | null = null;
  private profileDir: string | null = null;
  private readonly idle: Page[] = [];
  private open = 0;
  private readonly waiting: ((handed: { page: Promise<Page> }) => void)[] = [];

  constructor(private readonly options: PdfRendererOptions) {}

  /** Renders on a pooled page; a page lost with a dying browser is retried once on a fresh browser. */
  async render(html: string): Promise<Buffer> {
    try {
      return await this.renderOnce(html);
    } catch (err) {
      if (this.browser !== null && (await this.browser.then((b) => b.connected).catch(() => false))) throw err;
      this.options.logger.warn(
        { event: 'pdf_render_retried', err },
        'render failed with the browser gone; retrying on a new one',
      );
      this.browser = null;
      this.idle.length = 0;
      return this.renderOnce(html);
    }
  }

  private async renderOnce(html: string): Promise<Buffer> {
    const page = await this.acquire();
    let healthy = true;
    try {
      await page.setContent(html, { waitUntil: 'load', timeout: this.options.timeoutMs });
      const pdf = await page.pdf({
        format: 'A4',
        preferCSSPageSize: true,
        printBackground: true,
        timeout: this.options.timeoutMs,
      });
      return Buffer.from(pdf);
    } catch (err) {
      healthy = false;
      throw err;
    } finally {
      this.release(page, healthy);
    }
  }

  /** The running Chromium process (started if needed); for operators' diagnostics and tests. */
  async browserProcess(): Promise<ChildProcess | null> {
    return (await this.browserNow()).process();
  }

  async close(): Promise<void> {
    const browser = this.browser;
    this.browser = null;
    this.idle.length = 0;
    this.open = 0;
    const running = browser ? await browser.catch(() => null) : null;
    if (running) await running.close().catch(() => undefined);
    await this.dropProfile();
  }

  private async acquire(): Promise<Page> {
    const page = this.idle.pop();
    if (page && !page.isClosed() && page.browser().connected) return page;
    if (page) this.open--;
    if (this.open < this.options.pages) {
      this.open++;
      try {
        return await (await this.browserNow()).newPage();
      } catch (err) {
        this.open--;
        throw err;
      }
    }
    if (this.waiting.length >= this.options.maxQueue)
      throw new UnavailableError('the PDF renderer is busy; try again shortly');
    const handed = await new Promise<{ page: Promise<Page> }>((resolve) => this.waiting.push(resolve));
    return handed.page.catch((err: unknown) => {
      this.open = Math.max(0, this.open - 1);
      throw err;
    });
  }

  private release(page: Page, healthy: boolean): void {
    const next = this.waiting.shift();
    const usable = healthy && !page.isClosed() && page.browser().connected;
    if (!usable) void page.close().catch(() => undefined);
    if (next) {
      next({ page: usable ? Promise.resolve(page) : this.browserNow().then((b) => b.newPage()) });
      return;
    }
    if (usable) this.idle.push(page);
    else this.open = Math.max(0, this.open - 1);
  }

  private browserNow(): Promise<Browser> {
    if (!this.browser) {
      const launching = this.launch();
      this.browser = launching;
      launching.catch(() => {
        if (this.browser === launching) this.browser = null;
      });
    }
    return this.browser;
  }

  private async launch(): Promise<Browser> {
    await this.dropProfile();
    this.profileDir = await mkdtemp(join(tmpdir(), 'paymesh-chromium-'));
    const browser = await puppeteer.launch({
      executablePath: this.options.executablePath,
      headless: true,
      args: [...CHROMIUM_ARGS, `--user-data-dir=${this.profileDir}`],
    });
    browser.on('disconnected', () => {
      this.options.logger.warn(
        { event: 'chromium_disconnected' },
        'Chromium went away; it is started again on the next render',
      );
      if (this.browser) this.browser = null;
      this.idle.length = 0;
      this.open = 0;
    });
    this.options.logger.info({ event: 'chromium_started', pid: browser.process()?.pid }, 'Chromium started');
    return browser;
  }

  private async dropProfile(): Promise<void> {
    if (this.profileDir) await rm(this.profileDir, { recursive: true, force: true }).catch(() => undefined);
    this.profileDir = null;
  }
}
