// SPDX-License-Identifier: MIT
//
// Records target.har: Debian's Chromium, headless, driven by Playwright,
// browsing throng's built-in target on loopback, with a pause between
// pages as a user would make.  Run from the source tree after a build:
//
//   npm install playwright-core            # in any directory on NODE_PATH
//   node tests/data/har/record.mjs build/tests/test-har tests/data/har/target.har
//
// `test-har --serve-target` serves the built-in target and prints its URL.
import { spawn } from 'node:child_process';
import { chromium } from 'playwright-core';

const [serverExe, out] = process.argv.slice(2);
if (!serverExe || !out) {
  console.error('usage: node record.mjs TEST-HAR-EXE OUT.har');
  process.exit(2);
}

const server = spawn(serverExe, ['--serve-target'], { stdio: ['pipe', 'pipe', 'inherit'] });
const base = await new Promise((resolve, reject) => {
  server.stdout.once('data', (line) => resolve(line.toString().trim()));
  server.once('exit', (code) => reject(new Error(`the target exited (${code})`)));
});

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true });
try {
  const context = await browser.newContext({ recordHar: { path: out, content: 'embed' } });
  const page = await context.newPage();
  const pause = () => page.waitForTimeout(400);

  await page.goto(`${base}/`);
  await pause();
  await page.goto(`${base}/cookie`);          // Set-Cookie: throng=1
  await pause();
  await page.goto(`${base}/cookie`);          // sends it back: the jar's job in a replay
  await pause();
  await page.goto(`${base}/redirect/2`);      // three entries: 302, 302, 200
  await pause();
  await page.evaluate(() => fetch('/bytes/2048').then((r) => r.arrayBuffer()));  // binary: no page
  await pause();
  await page.evaluate(async () => {           // a JSON POST from the page
    await fetch('/echo', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Journey': 'checkout' },
      body: JSON.stringify({ item: 7, quantity: 2 }),
    });
  });
  await pause();
  await page.goto(`${base}/status/404`);
  await context.close();                      // writes the HAR
} finally {
  await browser.close();
  server.stdin.end();
}
