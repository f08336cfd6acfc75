// End-to-end tests of the planner in headless Chromium: the page loads and
// draws, levers change the report, links restore the state exactly, the
// embed view renders, the language switches, damaged links fall back with
// a message, and nothing is requested from another origin.
import { test, expect } from '@playwright/test';
import { drawn, hashOf, open, shots, watch } from './helpers';

test('the default page loads, draws its charts, and stays on its origin', async ({ page }) => {
  const w = watch(page);
  await open(page);
  await expect(page.getByTestId('app-title')).toHaveText('memwall');
  // The default workspace opens on its baseline, which hits the wall.
  await expect(page.getByTestId('verdict')).toHaveAttribute('data-verdict', 'DoesNotFit');
  // The address holds the workspace from the start.
  expect(await hashOf(page)).toMatch(/^#w=2\./);
  const charts = page.locator('canvas[data-testid^="chart-"]');
  await expect(charts.first()).toBeVisible();
  for (const id of await charts.evaluateAll((cs) => cs.map((c) => c.getAttribute('data-testid')!))) {
    await expect.poll(() => drawn(page, id), { message: `${id} is blank` }).toBe(true);
  }
  await page.screenshot({ path: `${shots}/planner-en.png`, fullPage: true });
  expect(w.errors).toEqual([]);
  expect(w.foreign).toEqual([]);
});

test('every view draws', async ({ page }) => {
  const w = watch(page);
  await open(page);
  for (const view of ['memory', 'time', 'frontier', 'sweep', 'compare']) {
    await page.getByTestId(`view-tab-${view}`).click();
    if (view === 'compare') {
      await expect(page.getByTestId('compare-table')).toBeVisible();
    } else {
      await expect.poll(() => drawn(page, `chart-${view}`), { message: `chart-${view}` }).toBe(true);
    }
    await page.screenshot({ path: `${shots}/view-${view}.png`, fullPage: true });
  }
  expect(w.errors).toEqual([]);
  expect(w.foreign).toEqual([]);
});

test('changing a lever changes the report and the address', async ({ page }) => {
  const w = watch(page);
  await open(page);
  const before = await page.getByTestId('hbm-margin').textContent();
  const hashBefore = await hashOf(page);
  const mb = page.getByTestId('lever-micro-batch');
  await mb.fill('4');
  await mb.press('Enter');
  await expect(page.getByTestId('hbm-margin')).not.toHaveText(before ?? '');
  expect(await hashOf(page)).not.toEqual(hashBefore);
  expect(w.errors).toEqual([]);
});

test('the training framework is a lever, and one that cannot run the sharding is refused by name', async ({ page }) => {
  const w = watch(page);
  await open(page);
  const fw = page.getByTestId('lever-training-stack');
  await expect(fw).toHaveValue('default');
  const hashBefore = await hashOf(page);
  // Megatron-Core has no FSDP mode that keeps parameters from forward to backward.
  await page.getByTestId('lever-sharding').selectOption('fsdp_shard_grad_op');
  await fw.selectOption('megatron_core');
  await expect(page.getByTestId('verdict')).toHaveAttribute('data-verdict', 'Invalid');
  await expect(page.getByText(/levers\.sharding: Megatron-Core/).first()).toBeVisible();
  // The verdict says what is wrong, not the margin of the stand-in values,
  // and the checklist waits for the errors to be fixed.
  await expect(page.getByTestId('verdict-reason')).toContainText('levers.sharding');
  await expect(page.getByTestId('hbm-margin')).toHaveCount(0);
  await expect(page.getByTestId('checklist-invalid')).toBeVisible();
  await expect(page.getByTestId('checklist-item')).toHaveCount(0);
  await expect(page.getByTestId('checklist-migration')).toBeHidden();
  await expect(page.getByTestId('summary-head')).toContainText('Invalid plan.');
  await expect(page.getByTestId('summary-head')).not.toContainText('GiB');
  await fw.selectOption('torchtitan');
  await expect(page.getByTestId('verdict')).not.toHaveAttribute('data-verdict', 'Invalid');
  await expect(page.getByTestId('hbm-margin')).toBeVisible();
  await expect(page.getByTestId('checklist-invalid')).toHaveCount(0);
  expect(await hashOf(page)).not.toEqual(hashBefore);
  expect(w.errors).toEqual([]);
});

// A board power limit (hardware.power_limit): the empty box shows the
// GPU's TDP; a lower limit is kept in the link and says what it costs, in the page's
// language; one below the measured caps is refused naming the field.
for (const lang of ['en', 'zh'] as const) {
  test(`a power limit is kept in the link and named, a bad one refused (${lang})`, async ({ page }) => {
    const w = watch(page);
    await open(page);
    if (lang === 'zh') await page.getByTestId('lang-switch').click();
    const box = page.getByTestId('hw-power-limit');
    await expect(box).toHaveAttribute('placeholder', /TDP \d+/);
    const hashBefore = await hashOf(page);
    await box.fill('500');
    await box.press('Enter');
    await expect.poll(() => hashOf(page)).not.toEqual(hashBefore);
    const note = page.getByText(lang === 'zh' ? /功耗上限 500 W/ : /power limit 500 W/).first();
    await expect(note).toBeVisible();
    await page.getByTestId('levers-hardware').screenshot({ path: `${shots}/power-limit-${lang}.png` });
    await page.setViewportSize({ width: 1440, height: 1000 });
    await page.screenshot({ path: `${shots}/power-limit-page-1440-${lang}.png`, fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await note.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${shots}/power-limit-page-390-${lang}.png` });
    await page.setViewportSize({ width: 1400, height: 1000 });
    await box.fill('50');
    await box.press('Enter');
    await expect(page.getByTestId('verdict')).toHaveAttribute('data-verdict', 'Invalid');
    await expect(page.getByText(/hardware\.power_limit/).first()).toBeVisible();
    expect(w.errors).toEqual([]);
  });
}

test('a copied link opened in a fresh page restores an identical state', async ({ page, browser }) => {
  await open(page);
  await page.getByTestId('dup-plan').click();
  await page.getByTestId('lang-switch').click();
  await page.getByTestId('view-tab-time').click();
  const hash = await hashOf(page);
  const margin = await page.getByTestId('hbm-margin').textContent();
  const title = await page.getByTestId('app-title').textContent();

  const fresh = await browser.newContext();
  const p2 = await fresh.newPage();
  const w = watch(p2);
  await open(p2, hash);
  expect(await hashOf(p2)).toEqual(hash);
  await expect(p2.getByTestId('hbm-margin')).toHaveText(margin ?? '');
  await expect(p2.getByTestId('app-title')).toHaveText(title ?? '');
  await expect(p2.getByTestId('plan-tab-1')).toBeVisible();
  expect(w.errors).toEqual([]);
  await fresh.close();
});

test('the embed view renders the comparison without the editor', async ({ page }) => {
  const w = watch(page);
  await open(page);
  const hash = (await hashOf(page)).replace('#w=', '#embed=1&w=');
  // A comparison's embed shows the family summary, not the baseline's
  // verdict (issue 15), so wait for the embed itself.
  await page.goto('/index.html' + hash);
  await expect(page.getByTestId('embed-view')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('family-summary')).toBeVisible();
  await expect(page.getByTestId('editor')).toHaveCount(0);
  await page.screenshot({ path: `${shots}/embed.png` });
  expect(w.errors).toEqual([]);
  expect(w.foreign).toEqual([]);
});

test('the language switch changes the text and is kept in the link', async ({ page }) => {
  await open(page);
  const en = await page.getByTestId('tagline').textContent();
  await page.getByTestId('lang-switch').click();
  await expect(page.getByTestId('tagline')).not.toHaveText(en ?? '');
  await expect(page.getByTestId('tagline')).toContainText('显存墙');
  await page.screenshot({ path: `${shots}/planner-zh.png`, fullPage: true });
  const hash = await hashOf(page);
  await page.goto('about:blank');
  await open(page, hash);
  await expect(page.getByTestId('tagline')).toContainText('显存墙');
});

test('the browser language picks Chinese', async ({ browser }) => {
  const ctx = await browser.newContext({ locale: 'zh-CN' });
  const page = await ctx.newPage();
  await open(page);
  await expect(page.getByTestId('tagline')).toContainText('显存墙');
  await ctx.close();
});

for (const [name, hash] of [
  ['truncated', null],
  ['garbage', '#w=1.%3Cscript%3Ealert(1)%3C%2Fscript%3E'],
  ['newer version', '#w=99.AAAA'],
  ['empty', '#w='],
] as const) {
  test(`a ${name} link falls back to the default plan with a message`, async ({ page }) => {
    const w = watch(page);
    let h = hash as string | null;
    if (h === null) {
      await open(page);
      const good = await hashOf(page);
      h = good.slice(0, Math.floor(good.length / 2));
    }
    await open(page, h);
    await expect(page.getByTestId('link-error')).toBeVisible();
    // The default workspace: its baseline over the wall, on the cost view.
    await expect(page.getByTestId('verdict')).toHaveAttribute('data-verdict', 'DoesNotFit');
    await expect(page.getByTestId('family-summary')).toBeVisible();
    // Nothing from the link became markup.
    expect(await page.locator('script:not([type])').count()).toBeLessThanOrEqual(1);
    expect(await page.evaluate(() => document.body.innerHTML.includes('<script>alert'))).toBe(false);
    expect(w.errors).toEqual([]);
  });
}

test('the content security policy allows no inline script but the hashed loader, and holds', async ({ page }) => {
  const { errors } = watch(page);
  await page.addInitScript(() => {
    (window as unknown as { cspViolations: string[] }).cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      (window as unknown as { cspViolations: string[] }).cspViolations.push(
        `${e.violatedDirective}: ${e.blockedURI}`,
      );
    });
  });
  await open(page);
  const csp = await page
    .locator('meta[http-equiv="Content-Security-Policy"]')
    .getAttribute('content');
  expect(csp).toBeTruthy();
  const scriptSrc = (csp ?? '').split(';').map((d) => d.trim()).find((d) => d.startsWith('script-src')) ?? '';
  expect(scriptSrc).not.toContain("'unsafe-inline'");
  expect(scriptSrc).toMatch(/'sha256-[A-Za-z0-9+/]{43}='/);
  expect(csp).toContain("object-src 'none'");
  expect(csp).toContain("base-uri 'none'");
  const violations = await page.evaluate(
    () => (window as unknown as { cspViolations: string[] }).cspViolations,
  );
  expect(violations).toEqual([]);
  expect(errors).toEqual([]);
});
