// Issue 15, the search off the page's thread: "Find best plans" runs in
// Web Workers, in parallel over slices of the space (hardware option × GPU
// count), with a progress bar and Cancel in the results column, and lists
// what it found there — what changed from the base, the family, verdict,
// latency, cost, ties and quality/SLA flags — each row one click from the
// workspace. The page thread never blocks: no long task over 200 ms while
// the default plan is searched at a 64-GPU budget.
import { test, expect, Page } from '@playwright/test';
import { open, shots, watch } from './helpers';

const LANGS = ['en', 'zh'] as const;
type Lang = (typeof LANGS)[number];

/** Counts the Web Workers the page starts and terminates, and records long
 *  tasks (PerformanceObserver 'longtask') from the start. */
async function instrument(page: Page) {
  await page.addInitScript(() => {
    const w = window as unknown as Record<string, unknown>;
    w.__started = [] as string[];
    w.__terminated = 0;
    w.__longtasks = [] as { start: number; duration: number }[];
    const Native = window.Worker;
    class Counted extends Native {
      constructor(url: string | URL, opts?: WorkerOptions) {
        super(url, opts);
        (w.__started as string[]).push(String(url));
      }
      terminate() {
        (w.__terminated as number)++;
        super.terminate();
      }
    }
    window.Worker = Counted as typeof Worker;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        (w.__longtasks as { start: number; duration: number }[]).push({ start: e.startTime, duration: e.duration });
      }
    }).observe({ type: 'longtask', buffered: true });
  });
}

async function openIn(page: Page, lang: Lang) {
  await open(page);
  const zh = (await page.getByTestId('tagline').textContent())?.includes('显存墙');
  if ((lang === 'zh') !== zh) await page.getByTestId('lang-switch').click();
  await expect(page.getByTestId('tagline')).toContainText(lang === 'zh' ? '显存墙' : 'memory wall');
}

async function setBudget(page: Page, gpus: number) {
  const box = page.getByTestId('gpu-budget');
  await box.fill(String(gpus));
  await box.press('Enter');
  await box.blur();
}

test('the search runs in parallel workers and never blocks the page (64 GPUs)', async ({ browser }) => {
  test.setTimeout(300_000);
  const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 }, deviceScaleFactor: 1 });
  const page = await ctx.newPage();
  const w = watch(page);
  await instrument(page);
  await openIn(page, 'en');
  await setBudget(page, 64);
  const plansBefore = await page.locator('[data-testid^="plan-tab-"]').count();
  const t0 = await page.evaluate(() => performance.now());
  await page.getByTestId('find-best').click();
  // Progress: slices done of all, in the results column.
  const bar = page.getByTestId('search-progress');
  await expect(bar).toBeVisible();
  await expect(page.getByTestId('results').getByTestId('search-progress')).toHaveCount(1);
  await expect(page.getByTestId('find-best')).toBeDisabled();
  const total = Number(await bar.getAttribute('aria-valuemax'));
  expect(total).toBeGreaterThan(1);
  await expect.poll(async () => Number(await bar.getAttribute('aria-valuenow')), { timeout: 240_000 }).toBeGreaterThan(0);
  await expect(page.getByTestId('found-list')).toBeVisible({ timeout: 240_000 });
  const t1 = await page.evaluate(() => performance.now());
  // N = min(hardwareConcurrency, slices) workers, all the search's.
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  const started = await page.evaluate(() => (window as unknown as { __started: string[] }).__started);
  expect(started.length).toBe(Math.max(1, Math.min(cores, total)));
  for (const u of started) expect(u).toContain('search-worker_loader.js');
  await expect(bar).toHaveCount(0);
  await expect(page.getByTestId('find-best')).toBeEnabled();
  // No long task while the search ran.
  const long = await page.evaluate(
    ([a, b]) =>
      (window as unknown as { __longtasks: { start: number; duration: number }[] }).__longtasks.filter(
        (t) => t.start + t.duration >= a && t.start <= b,
      ),
    [t0, t1],
  );
  console.log(`search of the default plan at 64 GPUs: ${((t1 - t0) / 1000).toFixed(2)} s in ${started.length} workers; longest task ${Math.max(0, ...long.map((t) => t.duration)).toFixed(0)} ms`);
  expect(long.filter((t) => t.duration > 200)).toEqual([]);

  // The rows: what changed (the core's diff), family, verdict, latency, cost.
  const rows = page.getByTestId('found-list').locator('tbody tr');
  const n = await rows.count();
  expect(n).toBeGreaterThan(1);
  for (let i = 0; i < n; i++) {
    const r = rows.nth(i);
    await expect(r.getByTestId('found-changed')).not.toBeEmpty();
    await expect(r.locator('td[data-col="latency"]')).toContainText(/\d/);
  }
  await expect(page.getByTestId('found-counts')).toContainText('plans evaluated');
  // A way over the wall that quantizes the base model is flagged.
  await expect(page.getByTestId('found-list').getByTestId('found-impact').first()).toBeVisible();
  // Add to plans: the workspace gains the row's plan and opens it.
  await page.getByTestId('add-found-0').click();
  await expect(page.locator('[data-testid^="plan-tab-"]')).toHaveCount(plansBefore + 1);
  expect(w.errors).toEqual([]);
  expect(w.foreign).toEqual([]);
  await ctx.close();
});

test('Cancel stops the workers mid-search and restores the idle state', async ({ browser }) => {
  test.setTimeout(120_000);
  const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 }, deviceScaleFactor: 1 });
  const page = await ctx.newPage();
  const w = watch(page);
  await instrument(page);
  await openIn(page, 'en');
  await setBudget(page, 64);
  await page.getByTestId('find-best').click();
  const bar = page.getByTestId('search-progress');
  await expect(bar).toBeVisible();
  const total = Number(await bar.getAttribute('aria-valuemax'));
  await page.getByTestId('search-cancel').click();
  // Idle: no bar, no results, the button back, every worker terminated.
  await expect(bar).toHaveCount(0);
  await expect(page.getByTestId('find-best')).toBeEnabled();
  await expect(page.getByTestId('found-list')).toHaveCount(0);
  const { started, terminated } = await page.evaluate(() => {
    const x = window as unknown as { __started: string[]; __terminated: number };
    return { started: x.__started.length, terminated: x.__terminated };
  });
  expect(started).toBeGreaterThan(0);
  expect(terminated).toBe(started);
  // Nothing comes back later from the cancelled search.
  await page.waitForTimeout(1500);
  await expect(page.getByTestId('found-list')).toHaveCount(0);
  await expect(bar).toHaveCount(0);
  expect(total).toBeGreaterThan(1);
  expect(w.errors).toEqual([]);
  await ctx.close();
});

for (const lang of LANGS) {
  for (const width of [1440, 390]) {
    test(`the plans found sit in the results column (${lang}, ${width})`, async ({ browser }) => {
      test.setTimeout(180_000);
      const ctx = await browser.newContext({ viewport: { width, height: width > 500 ? 900 : 844 }, deviceScaleFactor: 1 });
      const page = await ctx.newPage();
      const w = watch(page);
      await openIn(page, lang);
      await setBudget(page, 16);
      await page.getByTestId('find-best').click();
      const list = page.getByTestId('found-list');
      await expect(list).toBeVisible({ timeout: 150_000 });
      // In the results column, right under the chart, not in the editor.
      await expect(page.getByTestId('results').getByTestId('found-list')).toHaveCount(1);
      await expect(page.getByTestId('editor').getByTestId('found-list')).toHaveCount(0);
      const chart = await page.getByTestId('result-body').boundingBox();
      const found = await page.getByTestId('search-results').boundingBox();
      expect(found!.y).toBeGreaterThanOrEqual(chart!.y + chart!.height - 1);
      const summary = await page.getByTestId('family-summary').boundingBox();
      if (summary) expect(found!.y).toBeLessThan(summary.y);
      // In the page's language.
      await expect(page.getByTestId('search-results').locator('h3')).toHaveText(
        lang === 'zh' ? '搜索找到的方案' : 'Plans the search found',
      );
      await expect(list.locator('button').first()).toHaveText(lang === 'zh' ? '加入方案' : 'Add to plans');
      // No sideways scroll on a phone.
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await page.getByTestId('search-results').screenshot({ path: `${shots}/search-${lang}-${width}.png` });
      expect(w.errors).toEqual([]);
      await ctx.close();
    });
  }
}
