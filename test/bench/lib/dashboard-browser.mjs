// Chromium for the dashboard benches: headless Debian Chromium (or CHROMIUM_PATH), a page with a
// virtual passkey authenticator, signed in as the bootstrap Admin through its enrollment link.
import puppeteer from 'puppeteer-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Launches Chromium and signs in with a passkey of its virtual authenticator; waits for `ready`
 * (a page expression) after the sign-in. Answers the browser and its signed-in page.
 */
export async function signedInDashboard(boot, { ready, timeoutMs, viewport = { width: 1280, height: 900 } }) {
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  try {
    const page = await browser.newPage();
    await page.setViewport(viewport);
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
    await page.goto(boot.enrollmentLink);
    await page.waitForSelector('main button');
    await page.click('main button');
    await page.waitForFunction(ready, { timeout: timeoutMs });
    return { browser, page };
  } catch (err) {
    await browser.close();
    throw err;
  }
}
