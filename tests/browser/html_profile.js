// Checks an HTML profile (`dfc profile --html`) in headless Chromium as a person would use it:
// it opens offline with no console error, has the expected kernel rows and steps, zooms from
// the whole run into one step and one cluster, and a click on a kernel shows its graph nodes.
//
//   node html_profile.js PAGE.html KERNELS STEPS SCREENSHOT.png
//
// Exits 1 with the first failed check.
const { chromium } = require('playwright-core');

const [page_path, kernels, steps, screenshot] = process.argv.slice(2);
if (!screenshot) {
  console.error('usage: node html_profile.js PAGE.html KERNELS STEPS SCREENSHOT.png');
  process.exit(2);
}

function check(ok, what) {
  if (!ok) throw new Error(what);
  console.log(`ok: ${what}`);
}

(async () => {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox'],
  });
  let failed = false;
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const errors = [];
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    page.on('pageerror', (e) => errors.push(e.message));
    // Offline: the page may load nothing but itself.
    const fetched = [];
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith('file://')) return route.continue();
      fetched.push(url);
      return route.abort();
    });
    await page.goto('file://' + require('path').resolve(page_path));
    await page.waitForFunction(() => window.dfcProfile !== undefined);

    const rows = await page.locator('#kernel-table tbody tr').count();
    check(rows === Number(kernels), `${rows} kernel rows, expected ${kernels}`);
    const buttons = await page.locator('#steps button').count();
    check(buttons === Number(steps), `${buttons} steps, expected ${steps}`);

    // Sorting: by name ascending, then by total descending.
    await page.locator('#kernel-table th', { hasText: 'Kernel' }).click();
    const names = await page.locator('#kernel-table tbody tr td:first-child').allTextContents();
    check(names.join('\n') === [...names].sort().join('\n'), 'the kernel table sorts by name');
    await page.locator('#kernel-table th', { hasText: 'Total' }).click();
    check(await page.locator('#kernel-table th.desc').count() === 1,
          'the kernel table sorts by total, descending');

    const width = () => page.evaluate(() => dfcProfile.view.t1 - dfcProfile.view.t0);
    const whole = await width();
    await page.locator('#steps button').first().click();
    const step = await width();
    check(step < whole, `step 1 zooms in: ${step.toFixed(1)} µs of ${whole.toFixed(1)}`);
    check((await page.locator('#levels').textContent()).includes('step 1'),
          'the levels read "Whole run › step 1"');

    // A cluster's span inside the step: the third level.
    const cluster = await page.evaluate(() => dfcProfile.locate('span', 'cluster'));
    check(cluster !== null, 'a cluster span is drawn in the step');
    await page.mouse.click(cluster.x, cluster.y);
    check((await width()) < step, `clicking "${cluster.name}" zooms to it`);
    const levels = await page.locator('#levels').textContent();
    check(/step 1.*cluster/.test(levels), `the levels read "${levels}"`);
    // The wheel zooms out around the pointer, and back in.
    const before = await width();
    await page.mouse.move(cluster.x, cluster.y);
    await page.mouse.wheel(0, 300);
    check((await width()) > before, 'the wheel zooms out');

    // Back up to the step through the levels: its kernels end inside it, since a run waits for
    // what it fetches (a cluster's span may end before its kernel starts).
    await page.locator('#levels a[data-level="step"]').click();
    check(Math.abs((await width()) - step) < 1e-6, 'the "step 1" level zooms back to the step');

    // A kernel clicked on the timeline shows the graph nodes fused into it.
    const kernel = await page.evaluate(() => dfcProfile.locate('kernel'));
    check(kernel !== null, 'a kernel is drawn in the view');
    await page.mouse.click(kernel.x, kernel.y);
    const selection = await page.locator('#selection').textContent();
    check(selection.includes(kernel.name), `clicking kernel ${kernel.name} selects it`);
    const nodes = await page.locator('#selection-nodes tbody tr').count();
    check(nodes > 0, `it shows its ${nodes} fused graph nodes with their shares`);
    check(selection.includes('%'), 'each node has its estimated share');

    await page.screenshot({ path: screenshot });
    check(fetched.length === 0, `nothing fetched from the network (${fetched.join(', ')})`);
    check(errors.length === 0, `no console error (${errors.join('; ')})`);
  } catch (e) {
    console.error(`FAILED: ${e.message}`);
    failed = true;
  } finally {
    await browser.close();
  }
  process.exit(failed ? 1 : 0);
})();
