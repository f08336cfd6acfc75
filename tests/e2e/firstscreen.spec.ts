// Issue 15, the promise on the first screen: with no link the page opens
// on one model and workload that hits the wall, with software and hardware
// ways over it on the cost-vs-latency chart (Pareto line), the verdict and
// a summary of the best of each family. On a desktop all of it shows
// without a scroll; on a phone the verdict and the chart come first.
import { test, expect, Page, Locator } from '@playwright/test';
import { drawn, open, shots, watch } from './helpers';

const LANGS = ['en', 'zh'] as const;
type Lang = (typeof LANGS)[number];

async function openIn(page: Page, lang: Lang) {
  await open(page);
  const zh = (await page.getByTestId('tagline').textContent())?.includes('显存墙');
  if ((lang === 'zh') !== zh) await page.getByTestId('lang-switch').click();
  await expect(page.getByTestId('tagline')).toContainText(lang === 'zh' ? '显存墙' : 'memory wall');
}

/** Whether an element lies wholly inside the viewport, unscrolled. */
async function inFirstScreen(el: Locator, height: number) {
  const b = await el.boundingBox();
  expect(b, 'element has a box').not.toBeNull();
  expect(b!.y).toBeGreaterThanOrEqual(0);
  expect(b!.y + b!.height).toBeLessThanOrEqual(height);
}

for (const lang of LANGS) {
  test(`the first screen compares software with hardware without a scroll (${lang}, 1440)`, async ({ browser }) => {
    const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 }, deviceScaleFactor: 1 });
    const page = await ctx.newPage();
    const w = watch(page);
    await openIn(page, lang);
    expect(await page.evaluate(() => window.scrollY)).toBe(0);
    // The baseline hits the wall.
    await expect(page.getByTestId('verdict')).toHaveAttribute('data-verdict', 'DoesNotFit');
    await expect(page.getByTestId('view-tab-frontier')).toHaveAttribute('aria-selected', 'true');
    await expect.poll(() => drawn(page, 'chart-frontier')).toBe(true);
    // Every plan is drawn; the frontier joins at least two that fit.
    const points = page.getByTestId('chart-data-frontier').locator('li[data-kind]');
    await expect(points).toHaveCount(7);
    const pareto = lang === 'zh' ? '帕累托前沿' : 'Pareto frontier';
    expect(await points.filter({ hasText: pareto }).count()).toBeGreaterThanOrEqual(2);
    const kinds = new Set(await points.evaluateAll((ls) => ls.map((l) => l.getAttribute('data-kind'))));
    for (const k of ['Baseline', 'Algorithmic', 'Hardware']) expect(kinds.has(k), k).toBe(true);
    // The summary: the best of each family, what changed, and the effort.
    const summary = page.getByTestId('family-summary');
    for (const fam of ['software', 'hardware', 'hybrid']) {
      const row = page.getByTestId(`summary-${fam}`);
      await expect(row).toBeVisible();
      await expect(row.getByTestId('summary-changed')).not.toBeEmpty();
      await expect(row.locator('td[data-col="usd-per-mtok"]')).toContainText('$');
      await expect(row.locator('td[data-col="migration"]')).toContainText(lang === 'zh' ? '人周' : 'person-weeks');
    }
    await expect(page.getByTestId('summary-hardware')).toContainText('B300');
    // Effort is counted from the baseline: new GPUs are an infrastructure change.
    await expect(page.getByTestId('summary-hardware').locator('td[data-col="migration"]')).toContainText(
      lang === 'zh' ? '换基础设施' : 'infrastructure change',
    );
    // A switch to adapters over a 4-bit base is never silent.
    await expect(page.getByTestId('summary-software').getByTestId('summary-impact')).toContainText(
      lang === 'zh' ? '影响模型质量' : 'affects model quality',
    );
    for (const el of [
      page.getByTestId('verdict'),
      page.getByTestId('chart-frontier'),
      page.getByTestId('summary-table'),
    ]) {
      await inFirstScreen(el, 900);
    }
    await page.screenshot({ path: `${shots}/first-screen-${lang}-1440.png` });
    // Opening a family's best plan makes it the active plan.
    await page.getByTestId('summary-open-hardware').click();
    await expect(page.getByTestId('verdict')).toHaveAttribute('data-verdict', 'Fits');
    await expect(page.locator('[data-testid^="plan-tab-"].active')).toContainText('B300');
    await expect(summary).toBeVisible();
    expect(w.errors).toEqual([]);
    expect(w.foreign).toEqual([]);
    await ctx.close();
  });

  test(`on a phone the first screen starts with the verdict and the chart (${lang}, 390)`, async ({ browser }) => {
    const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 });
    const page = await ctx.newPage();
    await openIn(page, lang);
    await expect.poll(() => drawn(page, 'chart-frontier')).toBe(true);
    await inFirstScreen(page.getByTestId('verdict'), 844);
    await inFirstScreen(page.getByTestId('chart-frontier'), 844);
    const summary = await page.getByTestId('family-summary').boundingBox();
    const editor = await page.getByTestId('editor').boundingBox();
    expect(summary!.y).toBeLessThan(editor!.y);
    // The summary fits the phone's width: nothing scrolls sideways.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await ctx.close();
  });
}
