// Web benchmarks of the built planner (dist/), printed, never asserted:
// gzipped wasm size, time from navigation to the first chart drawn, and the
// time from a lever change to every chart redrawn. The app marks each draw
// with performance.mark('memwall:chart:<name>'). Then the search in the
// browser: the GPT-3 example search (`memwall example-scenario`: GPT-3
// 175B within 1024 A100-80GB, its plan in tests/e2e/gpt3-plan.json) run
// from the page's "Find best plans" in Web Workers, timed from the click
// to the plans listed. Then the largest link the planner opens: 16 plans
// (the most a link holds) of the deepest model it takes (100,000 layers,
// tests/e2e/deepest-plan.json), timed from navigation to the verdict; and
// sizing the serving scenario's replicas to its stream in a Web Worker
// ("Size for the stream", 16 GPUs, every way the boxes allow by default:
// narrower formats, every priced GPU kind and both), timed from the click
// to the answers.
//
//   trunk build --release && node tests/e2e/bench.mjs
import { chromium } from '@playwright/test';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { deflateRawSync, gzipSync } from 'node:zlib';

const args = [
  '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--disable-quic', '--no-first-run',
];
const runs = Number(process.env.RUNS ?? 5);

const wasm = readdirSync('dist').filter((f) => f.endsWith('.wasm'));
for (const f of wasm) {
  const raw = readFileSync(`dist/${f}`);
  console.log(`wasm ${f}: ${(raw.length / 1024).toFixed(0)} KB, gzip ${(gzipSync(raw, { level: 9 }).length / 1024).toFixed(0)} KB`);
}
const js = readdirSync('dist').filter((f) => f.endsWith('.js'));
for (const f of js) {
  const raw = readFileSync(`dist/${f}`);
  console.log(`js ${f}: gzip ${(gzipSync(raw, { level: 9 }).length / 1024).toFixed(1)} KB`);
}

const server = spawn('node', ['tests/e2e/serve.mjs', 'dist', '8082'], { stdio: 'ignore' });
await new Promise((r) => setTimeout(r, 500));
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args });

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const first = [];
const redraw = [];
const searches = [];
let searchWorkers = 0;
const deepest = [];
const sizings = [];
// A workspace link as the core writes it (link.rs: version 1, raw DEFLATE,
// base64url) holding the GPT-3 example plan.
const gpt3 = JSON.parse(readFileSync('tests/e2e/gpt3-plan.json', 'utf8'));
const gpt3Link = '1.' + deflateRawSync(Buffer.from(JSON.stringify({ plans: [gpt3] })), { level: 9 }).toString('base64url');
const deep = JSON.parse(readFileSync('tests/e2e/deepest-plan.json', 'utf8'));
const deepLink = '1.' + deflateRawSync(Buffer.from(JSON.stringify({ plans: Array(12).fill(deep) })), { level: 9 }).toString('base64url');
try {
  for (let i = 0; i < runs; i++) {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 }, deviceScaleFactor: 2 });
    await page.goto('http://127.0.0.1:8082/index.html');
    await page.waitForFunction(() => performance.getEntriesByType('mark').some((m) => m.name.startsWith('memwall:chart:')), null, { timeout: 60_000 });
    first.push(await page.evaluate(() => Math.min(...performance.getEntriesByType('mark').filter((m) => m.name.startsWith('memwall:chart:')).map((m) => m.startTime))));

    // A lever change: micro-batch 1 → 2 → 1 …, timed from the input event
    // to the last chart mark that follows it.
    const box = page.getByTestId('lever-micro-batch');
    for (let j = 0; j < 5; j++) {
      const value = String(j % 2 === 0 ? 2 : 1);
      const t = await page.evaluate(async (value) => {
        const el = document.querySelector('[data-testid="lever-micro-batch"]');
        performance.clearMarks();
        const t0 = performance.now();
        el.value = value;
        el.dispatchEvent(new Event('input', { bubbles: true }));
        el.dispatchEvent(new Event('change', { bubbles: true }));
        await new Promise((r) => setTimeout(r, 300));
        const marks = performance.getEntriesByType('mark').filter((m) => m.name.startsWith('memwall:chart:'));
        return marks.length ? Math.max(...marks.map((m) => m.startTime)) - t0 : NaN;
      }, value);
      if (!Number.isNaN(t)) redraw.push(t);
    }
    void box;
    await page.close();
  }
  for (let i = 0; i < Math.min(runs, 3); i++) {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await page.goto(`http://127.0.0.1:8082/index.html#w=${gpt3Link}`);
    await page.getByTestId('verdict').waitFor({ timeout: 60_000 });
    const box = page.getByTestId('gpu-budget');
    await box.fill('1024');
    await box.press('Enter');
    await page.getByTestId('search-other-gpus').uncheck();
    const t0 = await page.evaluate(() => performance.now());
    await page.getByTestId('find-best').click();
    await page.getByTestId('found-list').waitFor({ timeout: 120_000 });
    searches.push((await page.evaluate(() => performance.now())) - t0);
    searchWorkers = await page.evaluate(() => navigator.hardwareConcurrency);
    await page.close();
  }
  for (let i = 0; i < Math.min(runs, 3); i++) {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const t0 = Date.now();
    await page.goto(`http://127.0.0.1:8082/index.html#w=${deepLink}`);
    await page.getByTestId('verdict').waitFor({ timeout: 60_000 });
    deepest.push(Date.now() - t0);
    await page.close();
  }
  for (let i = 0; i < Math.min(runs, 3); i++) {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await page.goto('http://127.0.0.1:8082/index.html');
    await page.getByTestId('verdict').waitFor({ timeout: 60_000 });
    await page.getByTestId('preset-select').selectOption('serving');
    await page.getByTestId('stream-verdict').waitFor({ timeout: 60_000 });
    const box = page.getByTestId('gpu-budget');
    await box.fill('16');
    await box.press('Enter');
    await box.blur();
    const t0 = await page.evaluate(() => performance.now());
    await page.getByTestId('size-stream').click();
    await page.getByTestId('sized-list').waitFor({ timeout: 120_000 });
    sizings.push((await page.evaluate(() => performance.now())) - t0);
    await page.close();
  }
} finally {
  await browser.close();
  server.kill();
}
console.log(`first chart drawn after navigation: median ${median(first).toFixed(0)} ms over ${first.length} loads (${first.map((x) => x.toFixed(0)).join(', ')})`);
if (redraw.length) {
  console.log(`lever change to every chart redrawn: median ${median(redraw).toFixed(1)} ms over ${redraw.length} changes (max ${Math.max(...redraw).toFixed(1)})`);
} else {
  console.log('lever change to redraw: no chart mark followed the change');
}
if (searches.length) {
  console.log(`GPT-3 example search in the browser (Web Workers, hardwareConcurrency ${searchWorkers}): median ${(median(searches) / 1000).toFixed(2)} s over ${searches.length} runs (${searches.map((x) => (x / 1000).toFixed(2)).join(', ')} s)`);
}
if (deepest.length) {
  console.log(`12 plans of a 100,000-layer model, navigation to verdict: median ${median(deepest).toFixed(0)} ms over ${deepest.length} loads (${deepest.join(', ')} ms)`);
}
if (sizings.length) {
  console.log(`serving scenario sized to its stream every way the page's boxes allow by default (narrower formats, every priced GPU kind, both; Web Workers; 16 GPUs): median ${(median(sizings) / 1000).toFixed(2)} s over ${sizings.length} runs (${sizings.map((x) => (x / 1000).toFixed(2)).join(', ')} s)`);
}
