// End-to-end tests of issue 15's independent findings: the loading
// indicator, hosting under a subpath, <html lang>, copying in an insecure
// context and fading notices, one colour per item kind with readable text,
// latency bars that stay visible, a price for every scenario's plans, and
// the results in view while editing (and first on a phone).
import { test, expect, Page, Request } from '@playwright/test';
import { open, shots, watch } from './helpers';

const LANGS = ['en', 'zh'] as const;
type Lang = (typeof LANGS)[number];

/** Opens the planner in a language (the switch, so the link keeps it). */
async function openIn(page: Page, lang: Lang, hash = '') {
  await open(page, hash);
  const zh = (await page.getByTestId('tagline').textContent())?.includes('显存墙');
  if ((lang === 'zh') !== zh) await page.getByTestId('lang-switch').click();
  await expect(page.getByTestId('tagline')).toContainText(lang === 'zh' ? '显存墙' : 'memory wall');
}

/** One region a chart drew, from its text alternative. */
type Region = { text: string; box: number[]; kind: string | null; color: string | null };

async function regions(page: Page, chart: string): Promise<Region[]> {
  return page.getByTestId(`chart-data-${chart}`).locator('li').evaluateAll((lis) =>
    lis.map((li) => ({
      text: li.textContent ?? '',
      box: (li.getAttribute('data-box') ?? '').split(' ').map(Number),
      kind: li.getAttribute('data-kind'),
      color: li.getAttribute('data-color'),
    })),
  );
}

/** WCAG 2.1 contrast of two CSS colours `rgb(r, g, b)` or `#rrggbb`. */
function contrast(a: string, b: string): number {
  const rgb = (c: string) =>
    c.startsWith('#')
      ? [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16))
      : (c.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map(Number);
  const lum = (c: string) => {
    const [r, g, b] = rgb(c).map((v) => {
      const s = v / 255;
      return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

test('a loading indicator shows until the app starts, then goes', async ({ page }) => {
  let release: () => void = () => {};
  const held = new Promise<void>((r) => (release = r));
  await page.route('**/*.wasm', async (route) => {
    await held;
    await route.continue();
  });
  await page.goto('/index.html');
  const loading = page.getByTestId('loading');
  await expect(loading).toBeVisible();
  await expect(loading).toContainText('Loading');
  await expect(loading).toContainText('正在加载');
  release();
  await expect(page.getByTestId('verdict')).toBeVisible({ timeout: 30_000 });
  await expect(loading).toHaveCount(0);
});

test('the site works when hosted under a subpath', async ({ page, request }) => {
  const base = 'http://127.0.0.1:8083/memwall/';
  // The subpath server serves nothing at the root, so a root-relative
  // asset URL would fail here.
  expect((await request.get('http://127.0.0.1:8083/index.html')).status()).toBe(404);
  const w = watch(page);
  const requested: string[] = [];
  page.on('request', (r: Request) => requested.push(r.url()));
  for (const entry of [base, `${base}index.html`]) {
    await page.goto(entry);
    await expect(page.getByTestId('verdict')).toBeVisible({ timeout: 30_000 });
    await expect(page.getByTestId('loading')).toHaveCount(0);
  }
  const assets = requested.filter((u) => /\.(js|wasm|css)$/.test(u));
  expect(assets.length).toBeGreaterThanOrEqual(3);
  for (const u of assets) expect(u.startsWith(base), u).toBe(true);
  // Errors other than the 404s of the root check above.
  expect(w.errors.filter((e) => !e.includes('404'))).toEqual([]);
});

test('<html lang> follows the language switch', async ({ page, browser }) => {
  await open(page);
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');
  await page.getByTestId('lang-switch').click();
  await expect(page.locator('html')).toHaveAttribute('lang', 'zh-CN');
  await page.getByTestId('lang-switch').click();
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');
  const ctx = await browser.newContext({ locale: 'zh-CN' });
  const zh = await ctx.newPage();
  await open(zh);
  await expect(zh.locator('html')).toHaveAttribute('lang', 'zh-CN');
  await ctx.close();
});

for (const lang of LANGS) {
  test(`without navigator.clipboard, copying opens a dialog with the text selected (${lang})`, async ({ page }) => {
    // A plain-http host is an insecure context: no Clipboard API.
    await page.addInitScript(() => {
      Object.defineProperty(Navigator.prototype, 'clipboard', { get: () => undefined, configurable: true });
    });
    const w = watch(page);
    await openIn(page, lang);
    expect(await page.evaluate(() => navigator.clipboard)).toBeUndefined();
    for (const [button, expected] of [
      ['copy-link', '#w='],
      ['copy-embed', '<iframe'],
    ] as const) {
      await page.getByTestId(button).click();
      const dialog = page.getByTestId('share-dialog');
      await expect(dialog).toBeVisible();
      await expect(dialog).toContainText(lang === 'zh' ? 'Ctrl+C' : 'press Ctrl+C');
      if (lang === 'zh') await expect(dialog).toContainText('复制');
      const text = page.getByTestId('share-text');
      await expect(text).toBeFocused();
      const sel = await text.evaluate((t: HTMLTextAreaElement) => ({
        value: t.value,
        all: t.selectionStart === 0 && t.selectionEnd === t.value.length,
      }));
      expect(sel.value).toContain(expected);
      expect(sel.all).toBe(true);
      await page.getByTestId('share-close').click();
      await expect(dialog).toHaveCount(0);
    }
    expect(w.errors).toEqual([]);
  });
}

test('the "copied" notice fades away', async ({ browser }) => {
  const ctx = await browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'] });
  const page = await ctx.newPage();
  await open(page);
  await page.getByTestId('copy-link').click();
  const notice = page.getByTestId('notice');
  await expect(notice).toBeVisible();
  await expect(notice).toHaveCount(0, { timeout: 8_000 });
  expect(await page.evaluate(() => navigator.clipboard.readText())).toContain('#w=');
  await ctx.close();
});

/** The colour each kind is drawn in, over several views; fails on a kind
 * drawn in two colours. */
function collect(into: Map<string, string>, rs: Region[], where: string) {
  for (const r of rs) {
    if (!r.kind || !r.color) continue;
    const seen = into.get(r.kind);
    expect(seen ?? r.color, `${r.kind} in ${where}`).toBe(r.color);
    into.set(r.kind, r.color);
  }
}

/** CIE L*a*b* (D65) of `#rrggbb`. */
function lab(hex: string): number[] {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const v = parseInt(hex.slice(i, i + 2), 16) / 255;
    return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  });
  const x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
  const y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  const z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
  const f = (t: number) => (t > 0.008856 ? Math.cbrt(t) : 7.787 * t + 16 / 116);
  return [116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))];
}

/** Distinct kinds get colours that do not look alike: at least 15 CIE76
 * ΔE apart (the old golden-angle hues had pairs at 10). */
function distinct(m: Map<string, string>, what: string) {
  const entries = [...m];
  for (let i = 0; i < entries.length; i++) {
    for (let j = i + 1; j < entries.length; j++) {
      const [a, b] = [lab(entries[i][1]), lab(entries[j][1])];
      const d = Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
      expect(d, `${what}: ${entries[i][0]} ${entries[i][1]} and ${entries[j][0]} ${entries[j][1]}`).toBeGreaterThanOrEqual(15);
    }
  }
}

/** The canvas pixel inside a region, as #rrggbb. */
async function pixel(page: Page, chart: string, box: number[]): Promise<string> {
  return page.getByTestId(`chart-${chart}`).evaluate((c: HTMLCanvasElement, b: number[]) => {
    const k = c.width / c.clientWidth;
    // A quarter across, clear of the whisker drawn down the middle.
    const x = Math.round((b[0] + (b[2] - b[0]) / 4) * k);
    const y = Math.round(((b[1] + b[3]) / 2) * k);
    const d = c.getContext('2d')!.getImageData(x, y, 1, 1).data;
    return '#' + [d[0], d[1], d[2]].map((v) => v.toString(16).padStart(2, '0')).join('');
  }, box);
}

test('each item kind, time part and family has one colour, distinct from the others, and text reads at 4.5:1', async ({ page }) => {
  const w = watch(page);
  await open(page);
  const items = new Map<string, string>();
  const parts = new Map<string, string>();
  const families = new Map<string, string>();
  for (const preset of ['default', 'budget', 'serving', 'multi-tenant', 'china']) {
    await page.getByTestId('preset-select').selectOption(preset);
    for (const [view, into] of [
      ['memory', items],
      ['time', parts],
      ['frontier', families],
    ] as const) {
      await page.getByTestId(`view-tab-${view}`).click();
      await expect(page.getByTestId(`chart-data-${view}`).locator('li').first()).toBeAttached();
      const rs = await regions(page, view);
      collect(into, rs, `${preset}/${view}`);
      // The canvas is drawn in the colour the text alternative names.
      if (view !== 'frontier') {
        const big = rs.filter((r) => r.kind && r.box[2] - r.box[0] >= 6 && r.box[3] - r.box[1] >= 6);
        for (const r of big.slice(0, 6)) expect(await pixel(page, view, r.box), r.kind!).toBe(r.color);
      }
    }
  }
  expect(items.size).toBeGreaterThanOrEqual(10);
  expect(parts.size).toBeGreaterThanOrEqual(5);
  expect(families.size).toBeGreaterThanOrEqual(3);
  distinct(items, 'memory items');
  distinct(parts, 'time parts');
  distinct(families, 'plan families');

  // Text on coloured blocks (the tenants grid) reads at 4.5:1 or better.
  await page.getByTestId('preset-select').selectOption('multi-tenant');
  await page.getByTestId('view-tab-tenants').click();
  const blocks = page.getByTestId('tenants-part');
  await expect(blocks.first()).toBeVisible();
  const pairs = await blocks.evaluateAll((els) =>
    els
      .filter((e) => !e.classList.contains('free'))
      .map((e) => {
        const s = getComputedStyle(e);
        return [s.color, s.backgroundColor];
      }),
  );
  expect(pairs.length).toBeGreaterThanOrEqual(3);
  for (const [fg, bg] of pairs) expect(contrast(fg, bg), `${fg} on ${bg}`).toBeGreaterThanOrEqual(4.5);
  const jobColours = new Set(pairs.map((p) => p[1]));
  expect(jobColours.size).toBe(pairs.length);
  expect(w.errors).toEqual([]);
});

for (const lang of LANGS) {
  test(`every TPOT bar of the serving scenario is visible (${lang})`, async ({ page }) => {
    await openIn(page, lang);
    await page.getByTestId('preset-select').selectOption('serving');
    await page.getByTestId('view-tab-time').click();
    const tpot = lang === 'zh' ? '每输出 token 时间' : 'Time per output token';
    await expect(page.getByTestId('chart-data-time').locator('li').first()).toBeAttached();
    const rs = (await regions(page, 'time')).filter((r) => r.kind && r.text.includes(tpot));
    // Bar height per plan: the stack of its segments.
    const bars = new Map<string, [number, number]>();
    for (const r of rs) {
      const plan = r.text.split('\n')[0];
      const [top, bottom] = bars.get(plan) ?? [Infinity, -Infinity];
      bars.set(plan, [Math.min(top, r.box[1]), Math.max(bottom, r.box[3])]);
    }
    expect(bars.size).toBe(6);
    const heights = [...bars.values()].map(([top, bottom]) => bottom - top);
    // The scenario's TPOTs span more than ten times (KV read over PCIe
    // beside HBM-resident plans), so a linear axis would squash the fast ones.
    expect(Math.max(...heights) / Math.min(...heights)).toBeLessThan(20);
    for (const h of heights) expect(h).toBeGreaterThanOrEqual(12);
    if (lang === 'en') await page.screenshot({ path: `${shots}/view-time-serving.png`, fullPage: true });
  });
}

test('every built-in scenario places all its plans on the cost view', async ({ page }) => {
  const w = watch(page);
  await open(page);
  for (const preset of ['default', 'budget', 'serving', 'china', 'multi-tenant']) {
    await page.getByTestId('preset-select').selectOption(preset);
    await page.getByTestId('view-tab-frontier').click();
    const plans = await page.locator('[data-testid^="plan-tab-"]').count();
    expect(plans).toBeGreaterThan(0);
    await expect(page.getByTestId('frontier-unplaced')).toHaveCount(0);
    await expect(page.getByTestId('chart-data-frontier').locator('li[data-kind]')).toHaveCount(plans);
  }
  // The MIG slice's price is a share of an H100's: marked, with its source.
  await expect(page.getByTestId('frontier-assumed')).toContainText('price assumed');
  await expect(page.getByTestId('frontier-assumed')).toContainText('MIG');
  await page.screenshot({ path: `${shots}/view-frontier-multi-tenant.png`, fullPage: true });
  // The comparison marks that plan's dollar cells, naming the source.
  await page.getByTestId('view-tab-compare').click();
  const marks = page.getByTestId('compare-row-5').getByTestId('price-assumed');
  await expect(marks).toHaveCount(2);
  await expect(marks.first()).toHaveAttribute('title', /price assumed: .*usd_per_gpu_hour/);
  await expect(page.getByTestId('compare-row-0').getByTestId('price-assumed')).toHaveCount(0);
  expect(w.errors).toEqual([]);
});

for (const lang of LANGS) {
  test(`on a phone the verdict and the first chart come before the editor (${lang})`, async ({ browser }) => {
    const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 });
    const page = await ctx.newPage();
    await openIn(page, lang);
    const verdict = await page.getByTestId('verdict').boundingBox();
    const chart = await page.locator('canvas[data-testid^="chart-"]').first().boundingBox();
    const editor = await page.getByTestId('editor').boundingBox();
    expect(verdict!.y).toBeLessThan(844 - verdict!.height);
    expect(chart!.y).toBeLessThan(editor!.y);
    expect(chart!.y).toBeLessThan(844);
    await page.screenshot({ path: `${shots}/first-screen-${lang}-390.png` });
    await ctx.close();
  });

  test(`on a desktop the results stay in view while editing (${lang})`, async ({ browser }) => {
    const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 }, deviceScaleFactor: 1 });
    const page = await ctx.newPage();
    await openIn(page, lang);
    await page.screenshot({ path: `${shots}/first-screen-${lang}-1440.png` });
    const editorHeight = (await page.getByTestId('editor').boundingBox())!.height;
    expect(editorHeight).toBeGreaterThan(900);
    // Scroll to the editor's last levers.
    await page.getByTestId('editor').locator('input, select').last().scrollIntoViewIfNeeded();
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    await expect.poll(() => page.evaluate(() => window.scrollY)).toBeGreaterThan(400);
    const results = await page.getByTestId('results').boundingBox();
    const verdict = await page.getByTestId('verdict').boundingBox();
    expect(results!.y).toBeGreaterThanOrEqual(-1);
    expect(results!.y).toBeLessThan(900);
    expect(verdict!.y).toBeGreaterThanOrEqual(0);
    expect(verdict!.y + verdict!.height).toBeLessThanOrEqual(900);
    const chart = await page.locator('canvas[data-testid^="chart-"]').first().boundingBox();
    expect(chart!.y).toBeLessThan(900);
    await ctx.close();
  });
}

/** Labels a chart drew that leave the canvas or cover another label. */
async function labelProblems(page: Page, chart: string): Promise<string[]> {
  return page.getByTestId(`chart-${chart}`).evaluate((c: HTMLCanvasElement) => {
    const boxes: [number, number, number, number, string][] = JSON.parse(c.getAttribute('data-labels') ?? '[]');
    const [w, h] = [c.clientWidth, c.clientHeight];
    const out: string[] = [];
    for (const [x0, y0, x1, y1, t] of boxes) {
      if (x0 < -1 || y0 < -1 || x1 > w + 1 || y1 > h + 1) out.push(`"${t}" leaves the chart (${x0},${y0})–(${x1},${y1}) of ${w}×${h}`);
    }
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const [a, b] = [boxes[i], boxes[j]];
        const dx = Math.min(a[2], b[2]) - Math.max(a[0], b[0]);
        const dy = Math.min(a[3], b[3]) - Math.max(a[1], b[1]);
        if (dx > 1 && dy > 1) out.push(`"${a[4]}" covers "${b[4]}"`);
      }
    }
    return out;
  });
}

for (const lang of LANGS) {
  for (const width of [390, 1440]) {
    test(`chart labels stay inside their charts and apart (${lang}, ${width} px)`, async ({ browser }) => {
      const ctx = await browser.newContext({ viewport: { width, height: 900 }, deviceScaleFactor: 1 });
      const page = await ctx.newPage();
      await openIn(page, lang);
      const problems: string[] = [];
      for (const preset of ['default', 'budget', 'serving', 'multi-tenant', 'china']) {
        await page.getByTestId('preset-select').selectOption(preset);
        for (const view of ['memory', 'time', 'frontier', 'sweep', 'reliability', 'wall']) {
          await page.getByTestId(`view-tab-${view}`).click();
          const canvas = page.getByTestId(`chart-${view}`);
          // Some views draw only for some workloads (reliability: training).
          await page.waitForTimeout(150);
          if ((await canvas.count()) === 0) continue;
          await expect(canvas).toHaveAttribute('data-labels', /\[/);
          for (const p of await labelProblems(page, view)) problems.push(`${preset}/${view}: ${p}`);
          if (preset === 'serving' && (view === 'time' || view === 'frontier') && width === 390) {
            await page.getByTestId(`chart-box-${view}`).screenshot({ path: `${shots}/${view}-serving-${lang}-390.png` });
          }
        }
      }
      expect(problems).toEqual([]);
      await ctx.close();
    });
  }
}
