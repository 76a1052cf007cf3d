/**
 * /docs in the system's headless Chromium (playwright-core) against the real app: "Authorize" signs a demo customer
 * in with PKCE, opened as localhost and as 127.0.0.1; "Test Request" → "Send" shows their balance and sends a
 * payment; the page names the demo users, hides the public client's secret, has one Webhooks group and no route
 * table jargon; every request stays on the service, no CSP violation. Without a browser the test fails, saying so.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
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

/** A context that records requests leaving the service and CSP violations. */
async function watchedContext(browser: Browser, service: readonly string[]) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const foreign: string[] = [];
  const violations: string[] = [];
  context.on('request', (request) => {
    const url = new URL(request.url());
    if (url.protocol !== 'data:' && url.protocol !== 'blob:' && !service.includes(url.origin))
      foreign.push(request.url());
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
  return { context, foreign, violations };
}

/** "Authorize" → the provider's sign-in window → consent; resolves once the page holds a token. */
async function signIn(page: Page, user: string, password: string, wrongFirst = false): Promise<void> {
  const authorize = page.getByRole('button', { name: 'Authorize' }).first();
  const [popup] = await Promise.all([page.waitForEvent('popup'), authorize.click()]);
  const username = popup.getByLabel('User name');
  await username.waitFor();
  if (wrongFirst) {
    assert.equal(await popup.evaluate('document.activeElement?.id'), 'username', 'the first field has the focus');
    // A wrong password first: the error beside the field, the user name kept.
    await username.fill(user);
    await popup.getByLabel('Password').fill(`not-the-password-${Date.now()}`);
    await popup.getByRole('button', { name: 'Sign in' }).click();
    const error = popup.locator('#login-error');
    await error.waitFor();
    assert.equal(await error.textContent(), 'Wrong user name or password.');
    assert.equal(await popup.getByLabel('User name').inputValue(), user);
    assert.equal(await popup.getByLabel('Password').getAttribute('aria-describedby'), 'login-error');
    assert.equal(await popup.evaluate('document.activeElement?.id'), 'password');
  }
  await username.fill(user);
  await popup.getByLabel('Password').fill(password);
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
}

/** The reference's "Test Request" window of an operation, from its group in the sidebar. */
async function openTestRequest(page: Page, group: string, operation: string, button: RegExp): Promise<void> {
  await page.getByRole('button', { name: `Open Group - ${group}` }).click();
  await page.getByRole('link', { name: operation }).first().click();
  await page.getByRole('button', { name: button }).first().click();
  await page.getByRole('button', { name: /^Send/ }).first().waitFor();
}

test(
  'the docs page: sign in with PKCE as a demo customer from localhost and from 127.0.0.1, read a balance, send a payment',
  { timeout: 240_000 },
  async (t) => {
    const browser = await launchChromium();
    t.after(() => browser.close());
    const port = await freePort();
    // The issuer is localhost (the default's name); the page is opened by both loopback names.
    const localhost = `http://localhost:${port}`;
    const loopback = `http://127.0.0.1:${port}`;
    const h = await startApp(t, { PORT: String(port), AUTH_ISSUER: `${localhost}/oauth` }, { singleInstance: true });
    await h.app.listen({ port, host: '127.0.0.1' });
    // The app generates the demo passwords at first start, into its credentials file: read from there.
    const credentials = JSON.parse(readFileSync(credentialsFile(h.dataDir), 'utf8')) as IdentityCredentials;
    const expected = JSON.parse(
      (await h.request({ method: 'GET', url: '/v1/accounts/1001-01/balance', as: 'ada' })).body,
    ) as { balance: number; currency: string };

    await t.test('opened as localhost: the demo users, no client secret, one Webhooks group, a balance', async () => {
      const { context, foreign, violations } = await watchedContext(browser, [localhost]);
      t.after(() => context.close());
      const page = await context.newPage();
      await page.goto(`${localhost}/`);
      assert.equal(new URL(page.url()).pathname, '/docs/', '/ leads to the docs page');
      await page.getByRole('button', { name: 'Authorize' }).first().waitFor();
      assert.match(await page.title(), /Corebridge API/);

      // Beside the sign-in: who to sign in as, with the passwords (this browser is on the server's machine).
      await page.getByRole('heading', { name: 'Sign in with a demo user' }).waitFor();
      for (const [user, role] of [
        ['ada', 'customer (customer 1001)'],
        ['alan', 'customer (customer 1002)'],
        ['grace', 'customer (customer 1003)'],
        ['clerk', 'agent'],
      ] as const) {
        const row = page.getByRole('row').filter({ has: page.getByRole('cell', { name: user, exact: true }) });
        assert.deepEqual(await row.first().getByRole('cell').allInnerTexts(), [
          user,
          role,
          credentials.passwords[user],
        ]);
      }
      // The docs client is public: the sign-in form asks for no client secret.
      await page.getByText('Client ID').first().waitFor();
      assert.equal(await page.getByText('Client Secret').first().isVisible(), false, 'no client secret field');
      // One group called Webhooks (what arrives), the subscriptions apart under their own name.
      const groups = (await page.getByRole('button', { name: /^Open Group - / }).allTextContents()).map((g) =>
        g.replace(/^Open Group - /, ''),
      );
      assert.deepEqual(
        groups.filter((g) => /webhook/i.test(g)),
        ['Webhook subscriptions', 'Webhooks'],
      );

      await signIn(page, 'ada', credentials.passwords['ada']!, true);

      // Ada's balance, from the reference's "Test Request" → "Send", with the token.
      await openTestRequest(
        page,
        'accounts',
        'Read the balance of an account',
        /Test Request.*get \/v1\/accounts\/\{accountId\}\/balance/,
      );
      // What the operation says of access, in words.
      const body = await page.evaluate('document.body.innerText');
      assert.doesNotMatch(String(body), /ownership|backend-owner|customer-in-request|caller-filtered/);
      assert.match(String(body), /Customers see only their own; agents see all/);
      const [answer] = await Promise.all([
        page.waitForResponse((r) => /\/v1\/accounts\/1001-01\/balance$/.test(new URL(r.url()).pathname)),
        page.getByRole('button', { name: /^Send/ }).first().click(),
      ]);
      assert.match(
        String(answer.request().headers()['authorization']),
        /^Bearer ey/,
        'sent with the token from the sign-in',
      );
      assert.equal(answer.status(), 200, await answer.text());
      assert.deepEqual(await answer.json(), { ...expected, asOf: ((await answer.json()) as { asOf: string }).asOf });
      await page.getByText('200 OK').first().waitFor();
      await page.waitForFunction(
        `document.body.innerText.includes(${JSON.stringify(`"balance": ${expected.balance}`)})`,
      );

      const shot = decodePng(await page.screenshot());
      const spread = colourSpread(shot);
      assert.ok(
        spread.colours > 16 && spread.notBackground > 0.02,
        `the screenshot shows the page, not a blank (${spread.colours} colours, ${(spread.notBackground * 100).toFixed(1)}% not background)`,
      );
      assert.deepEqual(foreign, [], "no request left the service's origin");
      assert.deepEqual(violations, [], 'no CSP violation');
    });

    await t.test('opened as 127.0.0.1: sign in, send a payment with the Idempotency-Key the page made', async () => {
      const { context, foreign, violations } = await watchedContext(browser, [localhost, loopback]);
      t.after(() => context.close());
      const page = await context.newPage();
      await page.goto(`${loopback}/docs`);
      // Moved to the issuer's name: the sign-in window can only come back to the page that opened it there.
      assert.equal(page.url(), `${localhost}/docs/`);
      await page.getByRole('button', { name: 'Authorize' }).first().waitFor();
      await signIn(page, 'ada', credentials.passwords['ada']!);

      await openTestRequest(
        page,
        'payments',
        'Create a payment between two accounts',
        /Test Request.*post \/v1\/payments/,
      );
      // A valid payment typed into the body editor: from Ada's account to Alan's.
      const payment = {
        debtorAccount: '1001-01',
        creditorAccount: '1002-01',
        amount: 12.5,
        currency: 'EUR',
        reference: 'docs page',
      };
      const editor = page.locator('.cm-content').last();
      await editor.click();
      await page.keyboard.press('ControlOrMeta+A');
      await page.keyboard.press('Delete');
      await page.keyboard.insertText(JSON.stringify(payment));
      const [answer] = await Promise.all([
        page.waitForResponse((r) => new URL(r.url()).pathname === '/v1/payments' && r.request().method() === 'POST'),
        page.getByRole('button', { name: /^Send/ }).first().click(),
      ]);
      const key = String(answer.request().headers()['idempotency-key']);
      assert.match(key, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, 'a generated UUID');
      assert.ok([200, 201].includes(answer.status()), `${answer.status()} ${await answer.text()}`);
      const created = (await answer.json()) as { debtorAccount: string; amount: number };
      assert.equal(created.debtorAccount, payment.debtorAccount);
      assert.equal(created.amount, payment.amount);
      // Another page load, another key: not the same for everyone forever.
      const other = await h.app.inject({ url: '/docs/document.json' });
      assert.notEqual(other.body.match(/"example":"([0-9a-f-]{36})"/)?.[1], key);

      assert.deepEqual(foreign, [], "no request left the service's origins");
      assert.deepEqual(violations, [], 'no CSP violation');
    });
  },
);
