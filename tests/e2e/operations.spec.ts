// End-to-end tests of the operations views: the tenants view packs the
// workspace's plans on a pool and follows the pool's settings, the
// reliability view follows the failure rate, the wall over time draws with
// read-outs and a PNG, the checklist follows the levers, every setting
// survives a link opened in a fresh browser, and the views speak Chinese.
import { test, expect, Page } from '@playwright/test';
import { drawn, hashOf, open, shots, watch } from './helpers';

/** The multi-tenant scenario, showing one of the new views. */
async function multiTenant(page: Page, view: string) {
  await page.getByTestId('preset-select').selectOption('multi-tenant');
  await page.getByTestId(`view-tab-${view}`).click();
}

/** Moves the pointer over a canvas until a read-out shows; its text. */
async function hoverSomething(page: Page, testid: string): Promise<string | null> {
  const box = await page.getByTestId(testid).boundingBox();
  if (!box) return null;
  for (let y = box.y + 30; y < box.y + box.height - 30; y += 16) {
    for (let x = box.x + 60; x < box.x + box.width - 20; x += 16) {
      await page.mouse.move(x, y);
      const tip = page.getByTestId('chart-tooltip');
      if (await tip.count()) return tip.textContent();
    }
  }
  return null;
}

test('the tenants view packs the plans and follows the pool', async ({ page }) => {
  const w = watch(page);
  await open(page);
  await multiTenant(page, 'tenants');
  const table = page.getByTestId('tenants-table');
  await expect(table.locator('tbody tr')).toHaveCount(3);
  await expect(page.getByTestId('tenants-placed')).toHaveText('3 / 3');
  await expect(page.getByTestId('tenants-grid').getByTestId('tenants-gpu')).toHaveCount(1);
  await page.screenshot({ path: `${shots}/tenants.png`, fullPage: true });

  // MIG slices need more than one GPU for the three tenants.
  await page.getByTestId('tenants-mode').selectOption('mig');
  await expect(table.locator('tr[data-placed="false"]')).not.toHaveCount(0);
  await expect(page.getByTestId('tenants-diagnostics')).toContainText('no room');
  const before = await table.textContent();
  const hashBefore = await hashOf(page);
  const size = page.getByTestId('tenants-pool-size');
  await size.fill('2');
  await size.press('Enter');
  await expect(table).not.toHaveText(before ?? '');
  await expect(table.locator('tr[data-placed="false"]')).toHaveCount(0);
  await expect(page.getByTestId('tenants-grid').getByTestId('tenants-gpu')).toHaveCount(2);
  expect(await hashOf(page)).not.toEqual(hashBefore);

  // A job left out of the pool leaves the table.
  await page.getByTestId('tenants-job-5').uncheck();
  await expect(table.locator('tbody tr')).toHaveCount(2);
  expect(w.errors).toEqual([]);
  expect(w.foreign).toEqual([]);
});

test('the reliability view draws and follows the failure rate', async ({ page }) => {
  const w = watch(page);
  await open(page);
  await page.getByTestId('view-tab-reliability').click();
  await expect(page.getByTestId('reliability-table')).toBeVisible();
  await expect.poll(() => drawn(page, 'chart-reliability'), { message: 'chart-reliability' }).toBe(true);
  const interval = page.getByTestId('rel-interval');
  const before = await interval.textContent();
  const goodput = await page.getByTestId('rel-goodput').textContent();
  await page.screenshot({ path: `${shots}/reliability.png`, fullPage: true });

  const rate = page.getByTestId('reliability-failure-rate');
  await rate.fill('20');
  await rate.press('Enter');
  await expect(interval).not.toHaveText(before ?? '');
  await expect(page.getByTestId('rel-goodput')).not.toHaveText(goodput ?? '');
  expect(await hashOf(page)).toContain('#w=2.');

  // Slower storage means longer saves and a longer interval.
  const storage = page.getByTestId('reliability-storage');
  const atTwenty = await interval.textContent();
  await storage.fill('0.05');
  await storage.press('Enter');
  await expect(interval).not.toHaveText(atTwenty ?? '');
  expect(await hoverSomething(page, 'chart-reliability')).toBeTruthy();

  // A serving plan has no checkpoints: the view says so.
  await page.getByTestId('preset-select').selectOption('serving');
  await expect(page.getByTestId('reliability-note')).toBeVisible();
  await expect(page.getByTestId('reliability-table')).toHaveCount(0);
  expect(w.errors).toEqual([]);
  expect(w.foreign).toEqual([]);
});

test('the wall over time draws, reads out and saves a PNG', async ({ page }) => {
  const w = watch(page);
  await open(page);
  await page.getByTestId('view-tab-wall').click();
  await expect.poll(() => drawn(page, 'chart-wall'), { message: 'chart-wall' }).toBe(true);
  await expect(page.getByTestId('wall-row').first()).toBeVisible();
  expect(await page.getByTestId('wall-row').count()).toBeGreaterThan(5);
  const tip = await hoverSomething(page, 'chart-wall');
  expect(tip).toMatch(/GB/);
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByTestId('export-png-wall').click(),
  ]);
  expect(download.suggestedFilename()).toBe('memwall-wall.png');
  await page.mouse.move(0, 0);
  await page.screenshot({ path: `${shots}/wall.png`, fullPage: true });

  // The wall follows the active plan: serving needs less than training.
  const rows = await page.getByTestId('wall-table').textContent();
  await page.getByTestId('preset-select').selectOption('serving');
  await expect(page.getByTestId('wall-table')).not.toHaveText(rows ?? '');
  expect(w.errors).toEqual([]);
  expect(w.foreign).toEqual([]);
});

test('the checklist follows the levers of the active plan', async ({ page }) => {
  const w = watch(page);
  await open(page);
  // The single example plan (ZeRO-1): the default scenario's plans already use ZeRO-3.
  await page.getByTestId('preset-select').selectOption('example');
  const list = page.getByTestId('checklist');
  await expect(list.getByTestId('checklist-item').first()).toBeVisible();
  const ids = () => list.getByTestId('checklist-item').evaluateAll((els) => els.map((e) => e.getAttribute('data-id')).join(' '));
  const before = await list.textContent();
  const idsBefore = await ids();
  await page.getByTestId('lever-sharding').selectOption('zero3');
  await expect(list).not.toHaveText(before ?? '');
  expect(await list.textContent()).toContain('ZeRO-3');
  // Tensor parallelism adds its own items.
  await page.getByTestId('lever-sharding').selectOption('zero1');
  for (const [lever, value] of [['lever-tp', '2'], ['lever-dp', '4']]) {
    await page.getByTestId(lever).fill(value);
    await page.getByTestId(lever).press('Enter');
  }
  await expect.poll(ids).not.toEqual(idsBefore);
  // Against the first plan: a duplicate starts with nothing to change.
  await page.getByTestId('dup-plan').click();
  await expect(page.getByTestId('checklist-baseline')).not.toContainText('plain');
  expect(w.errors).toEqual([]);
});

test('a link with tenants and reliability settings reopens identically', async ({ page, browser }) => {
  await open(page);
  await page.getByTestId('view-tab-reliability').click();
  const rate = page.getByTestId('reliability-failure-rate');
  await rate.fill('3');
  await rate.press('Enter');
  await page.getByTestId('reliability-async').check();
  await expect(page.getByTestId('reliability-async')).toBeChecked();
  const interval = await page.getByTestId('rel-interval').textContent();
  await page.getByTestId('view-tab-tenants').click();
  await page.getByTestId('tenants-mode').selectOption('memory_cap');
  const size = page.getByTestId('tenants-pool-size');
  await size.fill('3');
  await size.press('Enter');
  await page.getByTestId('tenants-gpu').first().waitFor();
  await expect(page.getByTestId('tenants-used')).toContainText('/ 3');
  const table = await page.getByTestId('tenants-table').textContent();
  const hash = await hashOf(page);

  const fresh = await browser.newContext();
  const p2 = await fresh.newPage();
  const w = watch(p2);
  await open(p2, hash);
  expect(await hashOf(p2)).toEqual(hash);
  await expect(p2.getByTestId('view-tab-tenants')).toHaveAttribute('aria-selected', 'true');
  await expect(p2.getByTestId('tenants-table')).toHaveText(table ?? '');
  await expect(p2.getByTestId('tenants-pool-size')).toHaveValue('3');
  await expect(p2.getByTestId('tenants-mode')).toHaveValue('memory_cap');
  await p2.getByTestId('view-tab-reliability').click();
  await expect(p2.getByTestId('reliability-failure-rate')).toHaveValue('3');
  await expect(p2.getByTestId('reliability-async')).toBeChecked();
  await expect(p2.getByTestId('rel-interval')).toHaveText(interval ?? '');
  expect(w.errors).toEqual([]);
  await fresh.close();
});

test('the new views speak Chinese', async ({ page }) => {
  const w = watch(page);
  await open(page);
  await page.getByTestId('lang-switch').click();
  await expect(page.getByTestId('checklist')).toContainText('迁移清单');
  await multiTenant(page, 'tenants');
  await expect(page.getByTestId('view-tab-tenants')).toHaveText('多租户');
  await expect(page.getByTestId('tenants-table')).toContainText('作业');
  await expect(page.getByTestId('tenants-table')).toContainText('推理服务');
  await page.getByTestId('tenants-mode').selectOption('mig');
  await expect(page.getByTestId('tenants-diagnostics')).toContainText('池');
  await page.getByTestId('preset-select').selectOption('default');
  await page.getByTestId('view-tab-reliability').click();
  await expect(page.getByTestId('reliability-table')).toContainText('检查点');
  await expect.poll(() => drawn(page, 'chart-reliability')).toBe(true);
  await page.getByTestId('view-tab-wall').click();
  await expect(page.getByTestId('wall-note')).toContainText('模型');
  await expect.poll(() => drawn(page, 'chart-wall')).toBe(true);
  await page.screenshot({ path: `${shots}/wall-zh.png`, fullPage: true });
  expect(w.errors).toEqual([]);
});
