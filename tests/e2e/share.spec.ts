// Sharing (issue 15, findings 5, 7, 9, 10): the embed snippet in a docs
// page at 700 px and 390 px (width 100 %, height from the embedded page,
// the whole comparison, nothing cut, no blank area), the SVG export and the
// Markdown snippet, short (version 2) links with version-1 links still
// opening, plan names and <html lang> after a language switch, numbers in
// boxes, and point labels never over another point's marker.
import { test, expect, Page, Browser, FrameLocator } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { open, watch, hashOf, shots } from './helpers';

const LANGS = ['en', 'zh'] as const;
type Lang = (typeof LANGS)[number];

async function openIn(page: Page, lang: Lang, hash = '') {
  await open(page, hash);
  const zh = (await page.getByTestId('tagline').textContent())?.includes('显存墙');
  if ((lang === 'zh') !== zh) await page.getByTestId('lang-switch').click();
  await expect(page.getByTestId('tagline')).toContainText(lang === 'zh' ? '显存墙' : 'memory wall');
}

/** Without the Clipboard API a copy button opens a dialog with its text. */
async function noClipboard(page: Page) {
  await page.addInitScript(() => {
    Object.defineProperty(Navigator.prototype, 'clipboard', { get: () => undefined, configurable: true });
  });
}

async function copied(page: Page, button: string): Promise<string> {
  await page.getByTestId(button).click();
  const text = await page.getByTestId('share-text').inputValue();
  await page.getByTestId('share-close').click();
  return text;
}

/** The embed snippet of the planner's current workspace, in a docs page. */
async function docsPage(browser: Browser, snippet: string, width: number) {
  const ctx = await browser.newContext({ viewport: { width, height: 900 }, deviceScaleFactor: 1 });
  const page = await ctx.newPage();
  const html = readFileSync('tests/e2e/fixtures/docs-page.html', 'utf8').replace('{{SNIPPET}}', snippet);
  // Served by its own server on another origin (localhost, not
  // 127.0.0.1), as a docs site would be: a page the browser counts as
  // public may not frame a loopback address.
  const server = createServer((_, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html));
  await new Promise<void>((done) => server.listen(0, 'localhost', done));
  const port = (server.address() as AddressInfo).port;
  page.on('close', () => server.close());
  await page.goto(`http://localhost:${port}/guide.html`);
  return { ctx, page, frame: page.frameLocator('iframe[data-memwall]') };
}

/** The embed's content bottom inside its frame, and its overflow. */
async function inside(frame: FrameLocator) {
  return frame.locator('html').evaluate((root) => {
    const embed = document.querySelector('.embed') as HTMLElement;
    return {
      bottom: Math.ceil(embed.getBoundingClientRect().bottom + window.scrollY),
      scrollW: root.scrollWidth,
      clientW: root.clientWidth,
      scrollH: root.scrollHeight,
      clientH: root.clientHeight,
    };
  });
}

for (const lang of LANGS) {
  for (const width of [1440, 390]) {
    test(`the embed fits a docs column and follows its content's height (${lang}, ${width} px)`, async ({ page, browser }) => {
      await noClipboard(page);
      const w = watch(page);
      await openIn(page, lang);
      for (const view of ['frontier', 'compare']) {
        await page.getByTestId(`view-tab-${view}`).click();
        const snippet = await copied(page, 'copy-embed');
        expect(snippet).toContain('width:100%');
        const docs = await docsPage(browser, snippet, width);
        const { frame } = docs;
        await expect(frame.getByTestId('embed-view')).toBeVisible({ timeout: 30_000 });
        // The whole comparison: every plan of the link, not only the active one.
        const plans = await page.locator('[data-testid^="plan-tab-"]').count();
        await expect(frame.getByTestId('embed-plan')).toContainText(String(plans));
        await expect(frame.getByTestId('verdict')).toHaveCount(0);
        await expect(frame.getByTestId('family-summary')).toBeVisible();
        if (view === 'frontier') {
          await expect(frame.locator('[data-testid="chart-data-frontier"] li')).toHaveCount(plans);
        } else {
          await expect(frame.locator('table.compare tbody tr')).toHaveCount(plans);
        }
        const iframe = docs.page.locator('iframe[data-memwall]');
        const column = await docs.page.getByTestId('column').boundingBox();
        // The height follows the content: no inner scroll bar, no blank area.
        await expect
          .poll(async () => {
            const box = await iframe.boundingBox();
            return Math.abs(box!.height - (await inside(frame)).bottom);
          }, { timeout: 10_000 })
          .toBeLessThanOrEqual(2);
        const m = await inside(frame);
        const box = await iframe.boundingBox();
        expect(m.scrollH).toBeLessThanOrEqual(m.clientH + 1);
        expect(m.scrollW, 'nothing wider than the frame').toBeLessThanOrEqual(m.clientW + 1);
        expect(box!.width).toBeLessThanOrEqual(column!.width + 1);
        expect(box!.x).toBeGreaterThanOrEqual(column!.x - 1);
        const host = await docs.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        expect(host, 'the docs page does not scroll sideways').toBeLessThanOrEqual(0);
        // Cost and migration columns of the comparison fit or scroll inside the embed.
        if (view === 'compare') {
          const scroller = frame.locator('.table-scroll').first();
          const s = await scroller.evaluate((e) => ({ sw: e.scrollWidth, cw: e.clientWidth, ov: getComputedStyle(e).overflowX }));
          expect(s.sw <= s.cw + 1 || s.ov === 'auto' || s.ov === 'scroll').toBe(true);
          for (const col of ['usd-per-mtok', 'migration', 'effort']) {
            const cell = frame.locator(`table.compare td[data-col="${col}"]`).first();
            if ((await cell.count()) === 0) continue;
            await cell.scrollIntoViewIfNeeded();
            await expect(cell).toBeInViewport();
          }
        }
        await expect(docs.page.getByTestId('after')).toBeVisible();
        if (view === 'frontier') {
          await docs.page.screenshot({ path: `${shots}/embed-docs-${lang}-${width}.png`, fullPage: true });
        }
        await docs.ctx.close();
      }
      expect(w.errors).toEqual([]);
    });
  }

  test(`the chart downloads as SVG and the Markdown snippet links it to the planner (${lang})`, async ({ page }) => {
    await noClipboard(page);
    await openIn(page, lang);
    await page.getByTestId('view-tab-frontier').click();
    const names = await page
      .locator('[data-testid="chart-data-frontier"] li')
      .evaluateAll((lis) => lis.map((li) => (li.textContent ?? '').split('\n')[0].trim()));
    expect(names.length).toBeGreaterThan(2);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-svg').click()]);
    expect(download.suggestedFilename()).toBe('memwall-frontier.svg');
    const svg = readFileSync((await download.path())!, 'utf8');
    const parsed = await page.evaluate((text) => {
      const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
      const root = doc.documentElement;
      return {
        error: doc.getElementsByTagName('parsererror').length > 0,
        root: root.nodeName,
        texts: Array.from(doc.getElementsByTagName('text')).map((t) => t.textContent ?? ''),
        all: root.textContent ?? '',
        markers: doc.querySelectorAll('circle, polygon, polyline').length,
      };
    }, svg);
    expect(parsed.error).toBe(false);
    expect(parsed.root).toBe('svg');
    expect(parsed.markers).toBeGreaterThanOrEqual(names.length);
    for (const n of names) expect(parsed.all).toContain(n);
    // Point labels are drawn as text: whole names or their beginnings.
    const labels = parsed.texts.filter((t) => names.some((n) => n === t || (t.endsWith('…') && n.startsWith(t.slice(0, -1)))));
    expect(labels.length).toBeGreaterThan(2);
    expect(parsed.all).toMatch(lang === 'zh' ? /成本/ : /cost/i);
    const md = await copied(page, 'copy-markdown');
    expect(md).toMatch(/^\[!\[memwall: .+\]\(memwall-frontier\.svg\)\]\(http:\/\/127\.0\.0\.1:8081\/index\.html#w=2\.[A-Za-z0-9_-]+\)$/);
    const link = md.slice(md.lastIndexOf('](') + 2, -1);
    expect(link.endsWith(await hashOf(page))).toBe(true);
  });

  test(`preset names and <html lang> follow the language switch (${lang})`, async ({ page }) => {
    await openIn(page, lang);
    const other = lang === 'en' ? 'zh' : 'en';
    const before = await page.locator('[data-testid^="plan-tab-"]').allTextContents();
    await expect(page.locator('html')).toHaveAttribute('lang', lang === 'zh' ? 'zh-CN' : 'en');
    await page.getByTestId('lang-switch').click();
    await expect(page.locator('html')).toHaveAttribute('lang', other === 'zh' ? 'zh-CN' : 'en');
    const after = await page.locator('[data-testid^="plan-tab-"]').allTextContents();
    expect(after.length).toBe(before.length);
    const cjk = (s: string) => /[\u2e80-\u9fff]/.test(s);
    // The default scenario's plan names are in the new language.
    expect(after.some((n) => cjk(n))).toBe(other === 'zh');
    expect(after).not.toEqual(before);
    // Switching back gives the first names again.
    await page.getByTestId('lang-switch').click();
    await expect(page.locator('[data-testid^="plan-tab-"]')).toHaveText(before);
  });
}

test('links are short (version 2) and version-1 links still open', async ({ page }) => {
  const w = watch(page);
  await open(page);
  const v2 = await hashOf(page);
  expect(v2.startsWith('#w=2.')).toBe(true);
  const v1 = readFileSync('tests/e2e/fixtures/default-link-v1.txt', 'utf8').trim();
  expect(v1.startsWith('#w=1.')).toBe(true);
  console.log(`default workspace link: version 1 ${v1.length - 3} characters, version 2 ${v2.length - 3}`);
  expect(v2.length).toBeLessThan(v1.length / 2);
  const plans = await page.locator('[data-testid^="plan-tab-"]').allTextContents();
  await page.goto('about:blank');
  await open(page, v1);
  await expect(page.locator('[data-testid^="plan-tab-"]')).toHaveText(plans);
  await expect(page.getByTestId('link-error')).toHaveCount(0);
  expect(w.errors).toEqual([]);
});

for (const lang of LANGS) {
  test(`boxes show no exponent and results no long decimals (${lang})`, async ({ page }) => {
    await openIn(page, lang);
    const bad: string[] = [];
    for (const preset of ['default', 'example', 'budget', 'serving', 'multi-tenant', 'china']) {
      await page.getByTestId('preset-select').selectOption(preset);
      await page.waitForTimeout(100);
      const values = await page.locator('input[type="text"], input:not([type])').evaluateAll((xs) => xs.map((x) => (x as HTMLInputElement).value));
      for (const v of values) if (/^-?[\d.]+e[+-]?\d+$/i.test(v.trim())) bad.push(`${preset}: box "${v}"`);
      for (const view of ['memory', 'time', 'frontier', 'compare']) {
        await page.getByTestId(`view-tab-${view}`).click();
        const text = await page.getByTestId('results').innerText();
        // More than three significant digits after the point ("80.000 GiB",
        // "0.1000", "6334.6 h") breaks the one format.
        for (const m of text.match(/\d+\.\d+(?=\s*(GiB|GB|ms|s|min|h|d|%|person|人周|小时))/g) ?? []) {
          const digits = m.replace('.', '').replace(/^0+/, '');
          if (digits.length > 3) bad.push(`${preset}/${view}: "${m}"`);
        }
      }
    }
    expect(bad).toEqual([]);
  });

  for (const width of [390, 1440]) {
    test(`point labels never cover another point's marker (${lang}, ${width} px)`, async ({ browser }) => {
      const ctx = await browser.newContext({ viewport: { width, height: 900 }, deviceScaleFactor: 1 });
      const page = await ctx.newPage();
      await openIn(page, lang);
      const problems: string[] = [];
      for (const preset of ['default', 'budget', 'serving', 'multi-tenant', 'china']) {
        await page.getByTestId('preset-select').selectOption(preset);
        await page.getByTestId('view-tab-frontier').click();
        const canvas = page.getByTestId('chart-frontier');
        await expect(canvas).toHaveAttribute('data-labels', /\[/);
        const found = await page.evaluate(() => {
          const c = document.querySelector('[data-testid="chart-frontier"]') as HTMLElement;
          const labels: [number, number, number, number, string][] = JSON.parse(c.getAttribute('data-labels') ?? '[]');
          const markers = Array.from(document.querySelectorAll('[data-testid="chart-data-frontier"] li[data-box]')).map((li) =>
            (li.getAttribute('data-box') ?? '').split(' ').map(Number),
          );
          const out: string[] = [];
          for (const [x0, y0, x1, y1, t] of labels) {
            for (const [a, b, c2, d] of markers) {
              const dx = Math.min(x1, c2) - Math.max(x0, a);
              const dy = Math.min(y1, d) - Math.max(y0, b);
              if (dx > 1 && dy > 1) out.push(`"${t}" covers a marker at (${a},${b})`);
            }
          }
          return { out, markers: markers.length };
        });
        expect(found.markers).toBeGreaterThan(0);
        for (const p of found.out) problems.push(`${preset}: ${p}`);
      }
      expect(problems).toEqual([]);
      await ctx.close();
    });
  }
}
