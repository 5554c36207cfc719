// Opens a Chrome trace in the Performance panel of the DevTools that Chromium bundles
// (devtools://devtools/bundled/trace_app.html, its "Load trace…" button), expands the host
// thread and the device queue, selects the slice at a point and writes a screenshot.
//
//   node screenshot.js TRACE.json OUT.png [X,Y]
//
// The layout is DevTools' own (Chromium 156): two process tracks, "host" and "device: …",
// collapsed at first, each with its first thread or queue collapsed under it. The positions
// below are where their headers are drawn in a 1800x1000 window; another layout needs others.
const { chromium } = require('playwright-core');

const [trace, out, select] = process.argv.slice(2);
if (!trace || !out) {
  console.error('usage: node screenshot.js TRACE.json OUT.png [X,Y]');
  process.exit(2);
}

async function click(page, x, y) {
  await page.mouse.click(x, y);
  await page.waitForTimeout(300);
}

(async () => {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox'],
  });
  const page = await browser.newPage({ viewport: { width: 1800, height: 1000 } });
  await page.goto('devtools://devtools/bundled/trace_app.html');
  await page.waitForTimeout(3000);
  await page.keyboard.press('Escape');  // "Debugging connection was closed": there is no page
  await page.getByText('Performance', { exact: true }).first().click();
  await page.waitForTimeout(1500);
  const chooser = page.waitForEvent('filechooser', { timeout: 10000 });
  await page.getByLabel('Load trace…').first().click();
  await (await chooser).setFiles(trace);
  await page.waitForTimeout(6000);
  await click(page, 1771, 77);  // closes the keyboard-shortcuts card
  await page.getByLabel(/sidebar/i).first().click().catch(() => {});
  await page.waitForTimeout(500);
  // Expands from the bottom up, so that the headers above stay where they are.
  await click(page, 10, 149);  // device process
  await click(page, 10, 128);  // host process
  await click(page, 20, 183);  // the device's first queue
  await click(page, 20, 145);  // the host's first thread
  if (select) {
    const [x, y] = select.split(',').map(Number);
    await click(page, x, y);
    await page.waitForTimeout(700);
  }
  await page.screenshot({ path: out });
  await browser.close();
})().catch((e) => {
  console.error(e.message.split('\n')[0]);
  process.exit(1);
});
