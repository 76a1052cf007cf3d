/**
 * /docs in the system's headless Chromium (playwright-core) against the real app: "Authorize" signs a demo customer
 * in with PKCE, "Test Request" → "Send" shows their balance; every request stays on the service's origin, no CSP
 * violation. Without a browser the test fails, saying so.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { credentialsFile, type IdentityCredentials } from '../../src/identity/credentials.ts';
import { startApp } from '../helpers/app.ts';
import { freePort } from '../../support/free-port.ts';
import { colourSpread, decodePng } from './png.ts';

const CHROMIUM_CANDIDATES = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome-stable',
  '/usr/bin/google-chrome',
];

async function launchChromium(): Promise<Browser> {
  const path = process.env['CHROMIUM_PATH'] || CHROMIUM_CANDIDATES.find((p) => existsSync(p));
  if (!path) {
    assert.fail(
      `no Chromium found (looked at CHROMIUM_PATH and ${CHROMIUM_CANDIDATES.join(', ')}): install Debian's chromium package or set CHROMIUM_PATH`,
    );
  }
  try {
    return await chromium.launch({ executablePath: path, headless: true });
  } catch (error) {
    assert.fail(`Chromium at ${path} could not be launched headless: ${(error as Error).message}`);
  }
}

test(
  'the docs page: sign in with PKCE as a demo customer, read the balance with "Test Request", all from the service itself',
  { timeout: 180_000 },
  async (t) => {
    const browser = await launchChromium();
    t.after(() => browser.close());
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    // The app generates the demo passwords at first start, into its credentials file: read from there.
    const h = await startApp(t, { PORT: String(port), AUTH_ISSUER: `${origin}/oauth` }, { singleInstance: true });
    await h.app.listen({ port, host: '127.0.0.1' });
    const credentials = JSON.parse(readFileSync(credentialsFile(h.dataDir), 'utf8')) as IdentityCredentials;
    const expected = JSON.parse(
      (await h.request({ method: 'GET', url: '/v1/accounts/1001-01/balance', as: 'ada' })).body,
    ) as { balance: number; currency: string };

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const foreign: string[] = [];
    const violations: string[] = [];
    context.on('request', (request) => {
      const url = new URL(request.url());
      if (url.protocol !== 'data:' && url.protocol !== 'blob:' && url.origin !== origin) foreign.push(request.url());
    });
    context.on('console', (message) => {
      if (/Content Security Policy|CSP violation/i.test(message.text())) violations.push(message.text().slice(0, 300));
    });
    // Each page (the reference and the sign-in window) reports what its policy blocked, but one thing: the
    // reference's schema library (zod) probes once whether `Function('')` may run and, refused, validates
    // without compiled code. Eval stays refused; anything else blocked fails the test.
    // (Code run in the browser is given as text: this project's TypeScript has no DOM types.)
    await context.addInitScript({
      content: `document.addEventListener('securitypolicyviolation', (e) => {
      if (e.blockedURI === 'eval' && e.violatedDirective === 'script-src') return;
      console.error('CSP violation: ' + e.violatedDirective + ' blocked ' + e.blockedURI + ' at ' + e.sourceFile + ':' + e.lineNumber);
    });`,
    });
    const page = await context.newPage();

    await page.goto(`${origin}/`);
    assert.equal(new URL(page.url()).pathname, '/docs/', '/ leads to the docs page');
    const authorize = page.getByRole('button', { name: 'Authorize' }).first();
    await authorize.waitFor();
    assert.match(await page.title(), /Corebridge API/);

    // "Authorize" opens the provider's sign-in in a window of its own.
    const [popup] = await Promise.all([page.waitForEvent('popup'), authorize.click()]);
    const username = popup.getByLabel('User name');
    await username.waitFor();
    assert.equal(await popup.evaluate('document.activeElement?.id'), 'username', 'the first field has the focus');
    // A wrong password first: the error beside the field, the user name kept.
    await username.fill('ada');
    await popup.getByLabel('Password').fill(`not-the-password-${Date.now()}`);
    await popup.getByRole('button', { name: 'Sign in' }).click();
    const error = popup.locator('#login-error');
    await error.waitFor();
    assert.equal(await error.textContent(), 'Wrong user name or password.');
    assert.equal(await popup.getByLabel('User name').inputValue(), 'ada');
    assert.equal(await popup.getByLabel('Password').getAttribute('aria-describedby'), 'login-error');
    assert.equal(await popup.evaluate('document.activeElement?.id'), 'password');
    await popup.getByLabel('Password').fill(credentials.passwords['ada']!);
    await popup.getByRole('button', { name: 'Sign in' }).click();
    // The consent page says in words what each scope allows.
    await popup.getByRole('button', { name: 'Allow' }).waitFor();
    assert.ok(await popup.getByText('See accounts and their balances').isVisible());
    const [token] = await Promise.all([
      page.waitForResponse((r) => new URL(r.url()).pathname === '/oauth/token' && r.request().method() === 'POST'),
      popup.waitForEvent('close'),
      popup.getByRole('button', { name: 'Allow' }).click(),
    ]);
    assert.equal(token.status(), 200, 'the page exchanged the code (with its PKCE verifier) for tokens');
    // Signed in: the reference offers to refresh the token it holds instead of "Authorize".
    await page.getByRole('button', { name: 'Refresh', exact: true }).first().waitFor();

    // Ada's balance, from the reference's "Test Request" → "Send", with the token.
    await page.getByRole('button', { name: 'Open Group - accounts' }).click();
    await page.getByRole('link', { name: 'Read the balance of an account' }).first().click();
    await page.getByRole('button', { name: /Test Request.*get \/v1\/accounts\/\{accountId\}\/balance/ }).click();
    const send = page.getByRole('button', { name: /^Send/ }).first();
    await send.waitFor();
    const [answer] = await Promise.all([
      page.waitForResponse((r) => /\/v1\/accounts\/1001-01\/balance$/.test(new URL(r.url()).pathname)),
      send.click(),
    ]);
    assert.match(
      String(answer.request().headers()['authorization']),
      /^Bearer ey/,
      'sent with the token from the sign-in',
    );
    assert.equal(answer.status(), 200, await answer.text());
    assert.deepEqual(await answer.json(), { ...expected, asOf: ((await answer.json()) as { asOf: string }).asOf });
    await page.getByText('200 OK').first().waitFor();
    await page.waitForFunction(`document.body.innerText.includes(${JSON.stringify(`"balance": ${expected.balance}`)})`);

    const shot = decodePng(await page.screenshot());
    const spread = colourSpread(shot);
    assert.ok(
      spread.colours > 16 && spread.notBackground > 0.02,
      `the screenshot shows the page, not a blank (${spread.colours} colours, ${(spread.notBackground * 100).toFixed(1)}% not background)`,
    );

    assert.deepEqual(foreign, [], "no request left the service's origin");
    assert.deepEqual(violations, [], 'no CSP violation');
  },
);
