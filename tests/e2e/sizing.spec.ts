// Issues 11, 13 and 15: a serving plan with a request stream is sized to
// the stream on the page: the core's serving search runs in Web Workers
// (progress, cancel), on every way the boxes allow (narrower number
// formats, every priced GPU kind, both: each way's answer with the fewest
// GPUs, cheapest first, ties marked) or on the plan's own kind and
// formats (its replica shapes, fewest GPUs first), each with what
// changed; an answer added to the plans meets its targets there too.
import { test, expect, Page } from '@playwright/test';
import { open, shots, watch } from './helpers';

type Ways = 'own' | 'kinds' | 'all';

async function serving(page: Page, lang: 'en' | 'zh', budget: string, ways: Ways = 'own') {
  await open(page);
  if (lang === 'zh') await page.getByTestId('lang-switch').click();
  // A training plan cannot be sized to a stream.
  await expect(page.getByTestId('size-stream')).toHaveCount(0);
  await page.getByTestId('preset-select').selectOption('serving');
  await expect(page.getByTestId('stream-verdict')).toBeVisible();
  const box = page.getByTestId('gpu-budget');
  await box.fill(budget);
  await box.press('Enter');
  await box.blur();
  if (ways === 'own') await page.getByTestId('search-other-gpus').uncheck();
  if (ways !== 'all') await page.getByTestId('size-other-formats').uncheck();
}

const dollars = (s: string) => Number(s.replace(/[^0-9.]/g, ''));

for (const lang of ['en', 'zh'] as const) {
  test(`a stream is sized on every GPU kind, cheapest first (${lang})`, async ({ page }) => {
    test.setTimeout(180_000);
    const w = watch(page);
    await serving(page, lang, '16', 'kinds');
    await page.getByTestId('size-stream').click();
    await expect(page.getByTestId('sized-list')).toBeVisible({ timeout: 150_000 });
    const prices = await page.getByTestId('sized-per-hour').allInnerTexts();
    expect(prices.length).toBeGreaterThan(1);
    const priced = prices.filter((p) => p !== '—').map(dollars);
    for (let i = 1; i < priced.length; i++) expect(priced[i]).toBeGreaterThanOrEqual(priced[i - 1]);
    const kinds = await page.getByTestId('sized-changed').allInnerTexts();
    expect(new Set(kinds.map((k) => k.split('\n').find((l) => /×/.test(l)))).size).toBe(kinds.length);
    await expect(page.getByTestId('sized-counts')).toContainText(lang === 'zh' ? '每种方式' : "each way's");
    const families = await page.getByTestId('sized-family').evaluateAll((els) => els.map((e) => e.getAttribute('data-family')));
    expect(families.every((f) => f === 'baseline' || f === 'hardware')).toBeTruthy();
    const section = page.getByTestId('sized-results');
    await section.screenshot({ path: `${shots}/sized-kinds-${lang}.png` });
    const before = await page.locator('[data-testid^="plan-tab-"]').count();
    await page.getByTestId('add-sized-0').click();
    await expect(page.locator('[data-testid^="plan-tab-"]')).toHaveCount(before + 1);
    await expect(page.getByTestId('stream-verdict')).toHaveAttribute('data-stream-verdict', 'meets_slo');
    expect(w.errors).toEqual([]);
  });

  test(`a stream is sized to replicas on its own GPU kind (${lang})`, async ({ page }) => {
    test.setTimeout(180_000);
    const w = watch(page);
    await serving(page, lang, '16', 'own');
    await page.getByTestId('size-stream').click();
    await expect(page.getByTestId('sized-list')).toBeVisible({ timeout: 150_000 });
    expect(await page.getByTestId('sized-gpus').count()).toBeGreaterThan(0);
    // Fewest GPUs first, every answer within the budget.
    const gpus = await page.getByTestId('sized-gpus').allInnerTexts();
    const counts = gpus.map((g) => Number(g));
    for (let i = 0; i < counts.length; i++) {
      expect(counts[i]).toBeLessThanOrEqual(16);
      if (i > 0) expect(counts[i]).toBeGreaterThanOrEqual(counts[i - 1]);
    }
    await expect(page.getByTestId('sized-shape').first()).toContainText(/\d+ × TP \d+/);
    await expect(page.getByTestId('sized-counts')).toContainText(lang === 'zh' ? '模拟器' : 'simulator');
    const section = page.getByTestId('sized-results');
    await section.screenshot({ path: `${shots}/sized-${lang}.png` });
    // The first answer, added, is the active plan and meets its targets.
    const before = await page.locator('[data-testid^="plan-tab-"]').count();
    await page.getByTestId('add-sized-0').click();
    await expect(page.locator('[data-testid^="plan-tab-"]')).toHaveCount(before + 1);
    await expect(page.getByTestId('stream-verdict')).toHaveAttribute('data-stream-verdict', 'meets_slo');
    expect(w.errors).toEqual([]);
  });
}

// Software and hardware side by side: narrower formats on the plan's GPU,
// other kinds, both; a format change is flagged for quality, ties point
// to an earlier row and are explained, and the lead is cheapest unless it
// ties with one that keeps the formats.
for (const lang of ['en', 'zh'] as const) {
  test(`a stream is sized every way, software beside hardware (${lang})`, async ({ page }) => {
    test.setTimeout(240_000);
    const w = watch(page);
    await serving(page, lang, '16', 'all');
    await page.getByTestId('size-stream').click();
    await expect(page.getByTestId('sized-list')).toBeVisible({ timeout: 200_000 });
    const families = await page.getByTestId('sized-family').evaluateAll((els) => els.map((e) => e.getAttribute('data-family')));
    for (const f of ['software', 'hardware', 'hybrid']) expect(families).toContain(f);
    const n = families.length;
    const quality = lang === 'zh' ? '影响模型质量' : 'affects model quality';
    for (let i = 0; i < n; i++) {
      const row = page.getByTestId(`sized-${i}`);
      const impacts = (await row.getByTestId('sized-impact').allInnerTexts()).join(' ');
      const changesFormats = families[i] === 'software' || families[i] === 'hybrid';
      expect(impacts.includes(quality)).toBe(changesFormats);
      const tie = row.getByTestId('sized-tie');
      if ((await tie.count()) > 0) expect(Number((await tie.innerText()).replace(/[^0-9]/g, ''))).toBeLessThan(i + 1);
    }
    if ((await page.getByTestId('sized-tie').count()) > 0) await expect(page.getByTestId('sized-tie-note')).toBeVisible();
    // After the lead, cheapest first.
    const priced = (await page.getByTestId('sized-per-hour').allInnerTexts()).filter((p) => p !== '—').map(dollars);
    for (let i = 2; i < priced.length; i++) expect(priced[i]).toBeGreaterThanOrEqual(priced[i - 1]);
    // Tall enough that the section's screenshot holds every row.
    await page.setViewportSize({ width: 1440, height: 2600 });
    await page.getByTestId('sized-results').screenshot({ path: `${shots}/sized-ways-${lang}.png` });
    const before = await page.locator('[data-testid^="plan-tab-"]').count();
    await page.getByTestId('add-sized-0').click();
    await expect(page.locator('[data-testid^="plan-tab-"]')).toHaveCount(before + 1);
    await expect(page.getByTestId('stream-verdict')).toHaveAttribute('data-stream-verdict', 'meets_slo');
    expect(w.errors).toEqual([]);
  });
}

// A budget too small for the stream says so and asks for more.
test('a budget too small to carry the stream says so', async ({ page }) => {
  test.setTimeout(180_000);
  const w = watch(page);
  await serving(page, 'zh', '2', 'own');
  await page.getByTestId('size-stream').click();
  await expect(page.getByTestId('sized-none')).toBeVisible({ timeout: 150_000 });
  await expect(page.getByTestId('sized-none')).toContainText('2 个 GPU');
  await expect(page.getByTestId('sized-list')).toHaveCount(0);
  expect(w.errors).toEqual([]);
});

test('sizing can be cancelled, and reads whole on a phone', async ({ page }) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 390, height: 844 });
  const w = watch(page);
  await serving(page, 'en', '16', 'own');
  await page.getByTestId('size-stream').click();
  await expect(page.getByTestId('size-progress')).toBeVisible();
  await page.getByTestId('size-cancel').click();
  await expect(page.getByTestId('size-progress')).toHaveCount(0);
  await expect(page.getByTestId('sized-list')).toHaveCount(0);
  await page.getByTestId('size-stream').click();
  await expect(page.getByTestId('sized-list')).toBeVisible({ timeout: 150_000 });
  const section = page.getByTestId('sized-results');
  const box = await section.boundingBox();
  expect(box && box.x >= 0 && box.x + box.width <= 390 + 1).toBeTruthy();
  await section.screenshot({ path: `${shots}/sized-en-390.png` });
  expect(w.errors).toEqual([]);
});
