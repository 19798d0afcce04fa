// SPDX-License-Identifier: MIT
//
// Records login.har: Debian's Chromium, headless, driven by Playwright,
// signing in to login-app.py on loopback and buying something: a login
// form with a CSRF token, a session cookie, a redirect after POST, JSON
// XHRs with the page's CSRF token and an API token, a checkout form and
// the redirect to its new order.  Run from the source tree:
//
//   node tests/data/har/record-login.mjs tests/data/har/login.har
//
// with playwright-core installed by npm where Node finds it (an ES module
// ignores NODE_PATH: copy this file beside a node_modules holding it and
// pass the app's path as a second argument).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const [out, appPath] = process.argv.slice(2);
if (!out) {
  console.error('usage: node record-login.mjs OUT.har [login-app.py]');
  process.exit(2);
}

const app = appPath ?? fileURLToPath(new URL('login-app.py', import.meta.url));
const server = spawn('/usr/bin/python3', [app], { stdio: ['ignore', 'pipe', 'inherit'] });
const base = await new Promise((resolve, reject) => {
  server.stdout.once('data', (line) => resolve(line.toString().trim()));
  server.once('exit', (code) => reject(new Error(`the app exited (${code})`)));
});

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true });
try {
  const context = await browser.newContext({ recordHar: { path: out, content: 'embed' } });
  const page = await context.newPage();
  const pause = () => page.waitForTimeout(300);

  await page.goto(`${base}/`);
  await page.fill('input[name=username]', 'alice');
  await page.fill('input[name=password]', 'wonderland');
  await pause();
  await Promise.all([page.waitForURL(`${base}/account`), page.click('button[type=submit]')]);
  await pause();
  // What the account page's script would do: read the profile, add to the cart.
  const added = await page.evaluate(async () => {
    const csrf = document.querySelector('meta[name=csrf-token]').content;
    const profile = await (await fetch('/api/profile', { headers: { Accept: 'application/json' } })).json();
    const response = await fetch(`/api/carts/${profile.cart.id}/items`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json',
        'X-CSRF-Token': csrf,
        Authorization: `Bearer ${profile.api_token}`,
      },
      body: JSON.stringify({ sku: 'tea-42', quantity: 2 }),
    });
    return response.status;
  });
  if (added !== 201)
    throw new Error(`adding to the cart answered ${added}`);
  await pause();
  await Promise.all([page.waitForURL(/\/orders\//), page.click('#checkout button')]);
  await pause();
  const status = await page.evaluate(async () => {
    const order = document.querySelector('#order').dataset.order;
    return (await fetch(`/api/orders/${order}`, { headers: { Accept: 'application/json' } })).status;
  });
  if (status !== 200)
    throw new Error(`the order's status answered ${status}`);
  await context.close();                      // writes the HAR
} finally {
  await browser.close();
  server.kill();
}
