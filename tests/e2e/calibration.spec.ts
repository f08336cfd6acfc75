// End-to-end test of the Calibrate panel: typed rows for the active plan
// are fitted by the core, the knobs, errors and calibrated prediction are
// shown, "apply to plan" writes the knobs into the address, and bad input
// gives a plain-text message (never markup).
//
// SYNTHETIC: the typed values are made up for the test, not measured.
import { test, expect, Page, ConsoleMessage } from '@playwright/test';

/** Records console and page errors. */
function watch(page: Page) {
  const errors: string[] = [];
  page.on('console', (m: ConsoleMessage) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  return errors;
}

async function open(page: Page, hash = '') {
  await page.goto('/index.html' + hash);
  await expect(page.getByTestId('verdict')).toBeVisible({ timeout: 30_000 });
}

async function openPanel(page: Page) {
  await page.getByTestId('calib-panel').locator('summary').click();
  await expect(page.getByTestId('calib-fit')).toBeVisible();
}

function hashOf(page: Page): Promise<string> {
  return page.evaluate(() => window.location.hash);
}

test('typed rows are fitted, shown and applied to the plan', async ({ page }) => {
  const errors = watch(page);
  await open(page);
  // The example plan that fits (the default scenario opens on one that does not).
  await page.getByTestId('preset-select').selectOption('example');
  await openPanel(page);
  await page.getByTestId('calib-peak').fill('40');
  await page.getByTestId('calib-time').fill('5000');
  await page.getByTestId('calib-add-row').click();
  await expect(page.getByTestId('calib-row-0')).toBeVisible();
  await page.getByTestId('calib-fit').click();
  await expect(page.getByTestId('calib-error')).toHaveCount(0);
  await expect(page.getByTestId('calib-knobs')).toBeVisible();
  await expect(page.getByTestId('calib-knobs').locator('tr[data-fitted="true"]').first()).toBeVisible();
  const errs = page.getByTestId('calib-errors');
  await expect(errs.locator('tr[data-figure="StepTime"]')).toHaveCount(1);
  await expect(errs.locator('tr[data-figure="PeakAllocated"]')).toHaveCount(1);
  const step = page.getByTestId('calib-prediction').locator('tr[data-figure="StepTime"]');
  await expect(step.locator('td[data-col="calibrated"]')).toContainText('ms');
  // The fit brings the step time no further from the typed value.
  const pct = async (col: string) =>
    Math.abs(parseFloat((await errs.locator(`tr[data-figure="StepTime"] td[data-col="${col}"]`).innerText()).replace('%', '')));
  expect(await pct('after')).toBeLessThanOrEqual(await pct('before'));

  const before = await hashOf(page);
  await page.getByTestId('calib-apply').click();
  await expect(page.getByTestId('calib-applied')).toBeVisible();
  await expect.poll(() => hashOf(page)).not.toBe(before);
  // Applied: the plan's own prediction is now the calibrated one.
  await expect(step.locator('td[data-col="current"]')).toHaveText(
    await step.locator('td[data-col="calibrated"]').innerText(),
  );
  // The link carries the knobs: reloading it keeps them.
  const applied = await hashOf(page);
  await open(page, applied);
  expect(await hashOf(page)).toBe(applied);
  expect(errors).toEqual([]);
});

test('bad input gives a plain-text message, never markup', async ({ page }) => {
  const errors = watch(page);
  await open(page);
  await openPanel(page);
  await page.getByTestId('calib-fit').click();
  await expect(page.getByTestId('calib-error')).toBeVisible();

  await page.getByTestId('calib-peak').fill('<b>x</b>');
  await page.getByTestId('calib-add-row').click();
  await expect(page.getByTestId('calib-error')).toBeVisible();
  await expect(page.getByTestId('calib-rows')).toHaveCount(0);

  await page.getByTestId('calib-json').fill('{"measurements": [{"id": "<img src=x onerror=alert(1)>"}]}');
  await page.getByTestId('calib-fit').click();
  const msg = page.getByTestId('calib-error');
  await expect(msg).toBeVisible();
  await expect(msg.locator('*')).toHaveCount(0);
  await expect(page.getByTestId('calib-knobs')).toHaveCount(0);

  await page.getByTestId('calib-json').fill('{"format": "memwall-runset", "results": []}');
  await page.getByTestId('calib-fit').click();
  await expect(msg).toContainText('run set');
  expect(errors).toEqual([]);
});
