// Issue 15, the serving section: a serving plan shows the core's serving
// figures (KV pool in tokens, concurrency; with a request stream, TTFT and
// TPOT percentiles at the stream's rate, goodput under the SLOs, the
// largest sustainable rate, the price of input and output tokens); the
// stream and the engine are editable, and every name is the core's.
import { test, expect } from '@playwright/test';
import { open, shots, watch } from './helpers';

for (const lang of ['en', 'zh'] as const) {
  test(`a serving plan's figures follow its request stream and engine (${lang})`, async ({ page }) => {
    const w = watch(page);
    await open(page);
    if (lang === 'zh') await page.getByTestId('lang-switch').click();
    // The training default shows no serving section.
    await expect(page.getByTestId('serving-panel')).toHaveCount(0);
    await page.getByTestId('preset-select').selectOption('serving');
    // The scenario serves a request stream under vLLM: every plan fits,
    // and the verdict says how each serves the stream. The baseline
    // misses its targets, FP8 on the same GPUs meets them, 4×H200 with
    // the same software does not.
    const served = page.getByTestId('stream-verdict');
    await expect(page.getByTestId('verdict')).toHaveAttribute('data-verdict', 'Fits');
    await expect(served).toHaveAttribute('data-stream-verdict', /misses_slo|unsustainable/);
    await page.getByTestId('plan-tab-1').click(); // FP8
    await expect(served).toHaveAttribute('data-stream-verdict', 'meets_slo');
    await expect(served).toContainText(lang === 'zh' ? '满足 SLO' : 'Meets its SLOs');
    await page.getByTestId('plan-tab-3').click(); // 4×H200
    await expect(served).toHaveAttribute('data-stream-verdict', 'misses_slo');
    // The comparison says the same of every plan, and leads the hardware
    // family with the GB200 that meets the targets, not the cheaper H200.
    await page.getByTestId('view-tab-compare').click();
    await expect(page.getByTestId('compare-row-0')).toHaveAttribute('data-served', /misses_slo|unsustainable/);
    await expect(page.getByTestId('compare-row-1')).toHaveAttribute('data-served', 'meets_slo');
    await expect(page.getByTestId('compare-row-3')).toHaveAttribute('data-served', 'misses_slo');
    // The time chart draws a streamed request's median times, the wait
    // behind other requests one of their parts.
    await page.getByTestId('view-tab-time').click();
    await expect(page.getByTestId('chart-data-time')).toContainText(lang === 'zh' ? '等待其他请求' : 'behind other requests');
    await expect(page.getByTestId('chart-data-time')).toContainText(lang === 'zh' ? '服务前端' : 'server front end');
    const panel = page.getByTestId('serving-panel');
    await expect(panel).toBeVisible();
    await expect(page.getByTestId('serving-kv_pool_tokens')).toContainText(lang === 'zh' ? 'KV 缓存池' : 'KV pool');
    await expect(page.getByTestId('serving-max_concurrency')).toBeVisible();
    await expect(page.getByTestId('serving-ttft_p99')).toBeVisible();
    await expect(page.getByTestId('serving-max_rate_under_slo')).toBeVisible();
    // Without a stream, the verdict is memory's alone and no stream
    // figure shows.
    await page.getByTestId('lever-stream-on').uncheck();
    await expect(page.getByTestId('serving-ttft_p50')).toHaveCount(0);
    await expect(served).toHaveCount(0);

    // Static batches, and a stream of shorter chat requests, at a rate,
    // with targets.
    await page.getByTestId('lever-engine').selectOption('static');
    await page.getByTestId('lever-stream-on').check();
    for (const [id, v] of [['stream-prompt', '2048'], ['stream-output', '256'], ['stream-rate', '2']] as const) {
      await page.getByTestId(id).fill(v);
      await page.getByTestId(id).press('Enter');
    }
    for (const f of ['ttft_p50', 'ttft_p99', 'tpot_p50', 'tpot_p99', 'goodput', 'max_rate', 'usd_per_m_input', 'usd_per_m_output']) {
      await expect(page.getByTestId(`serving-${f}`), f).toBeVisible();
    }
    await expect(page.getByTestId('serving-ttft_p99')).toContainText(lang === 'zh' ? '首 token 时间 p99' : 'TTFT p99');
    await expect(page.getByTestId('serving-max_rate_under_slo')).toHaveCount(0);
    // Beside the memory verdict, how the stream is served: with no target,
    // whether the engine keeps up.
    await expect(served).toHaveAttribute('data-stream-verdict', 'keeps_up');
    await expect(served).toContainText(lang === 'zh' ? '跟得上请求流' : 'Keeps up with the stream');
    await page.getByTestId('stream-slo-ttft').fill('3000');
    await page.getByTestId('stream-slo-ttft').press('Enter');
    await expect(page.getByTestId('serving-max_rate_under_slo')).toBeVisible();
    // Static batches make a prompt wait for the batch: the plan fits and
    // misses its 3 s TTFT target, and says so with the simulated p99s.
    await expect(page.getByTestId('verdict')).toHaveAttribute('data-verdict', 'Fits');
    await expect(served).toHaveAttribute('data-stream-verdict', 'misses_slo');
    await expect(served).toContainText(lang === 'zh' ? '首 token 时间 p99' : 'TTFT p99');
    await page.getByTestId('verdict').screenshot({ path: `${shots}/verdict-stream-${lang}.png` });

    // A higher rate queues longer before the first token.
    const ttft = page.getByTestId('serving-ttft_p99').locator('dd');
    const before = await ttft.textContent();
    await page.getByTestId('stream-rate').fill('20');
    await page.getByTestId('stream-rate').press('Enter');
    await expect(ttft).not.toHaveText(before ?? '');
    // Past the largest rate the queue grows: the verdict names that rate.
    await expect(served).toHaveAttribute('data-stream-verdict', 'unsustainable');
    await expect(served).toContainText(lang === 'zh' ? '最大可持续请求速率' : 'largest sustainable rate');

    // A static batch has no server; an engine's server has a front end,
    // which the panel says is part of the client's TTFT.
    await expect(page.getByTestId('serving-front-end')).toHaveCount(0);
    // The engine is a lever, named as the core names it.
    await page.getByTestId('lever-engine').selectOption('sglang');
    await expect(panel.locator('h3')).toContainText('SGLang');
    await expect(page.getByTestId('serving-front-end')).toContainText(lang === 'zh' ? '10 毫秒' : '10 ms');
    // The front end is a lever: an empty box shows the engine's own, and a
    // server called in-process has none.
    const front = page.getByTestId('lever-front-end');
    await expect(front).toHaveAttribute('placeholder', lang === 'zh' ? '引擎默认: 10' : 'engine default: 10');
    await front.fill('0');
    await front.press('Enter');
    await expect(page.getByTestId('serving-front-end')).toHaveCount(0);
    await expect(page.getByTestId('lever-host-overlap')).toBeVisible();
    await expect(page.getByTestId('lever-scheduler-steps')).toHaveCount(0);
    // SGLang replays decode batches from CUDA graphs up to a batch its
    // defaults set by the GPU's memory and TP; the empty box shows it.
    const graphs = page.getByTestId('lever-graph-max-batch');
    await expect(graphs).toHaveAttribute('placeholder', lang === 'zh' ? /^引擎默认: \d+$/ : /^engine default: \d+$/);
    await panel.screenshot({ path: `${shots}/serving-${lang}.png` });

    // vLLM 0.6 as it ran: ten decode steps per scheduling make a new
    // prompt wait out the window, so the first token comes later.
    await page.getByTestId('lever-engine').selectOption('vllm_v0');
    await expect(panel.locator('h3')).toContainText('vLLM 0.6');
    const steps = page.getByTestId('lever-scheduler-steps');
    await expect(steps).toBeVisible();
    await expect(graphs).toHaveCount(0);
    const ttft50 = page.getByTestId('serving-ttft_p50').locator('dd');
    const single = await ttft50.textContent();
    await steps.fill('10');
    await steps.press('Enter');
    await expect(ttft50).not.toHaveText(single ?? '');
    await page.getByTestId('levers-stream').screenshot({ path: `${shots}/engine-levers-${lang}.png` });
    expect(w.errors).toEqual([]);
  });
}

// Disaggregated prefill and decode (issue 15: the core's pools were not
// editable): the split starts from the core's halves, each pool is a
// lever, and the results show both pools and the link.
for (const lang of ['en', 'zh'] as const) {
  test(`a serving plan splits into prefill and decode pools (${lang})`, async ({ page }) => {
    const w = watch(page);
    await open(page);
    if (lang === 'zh') await page.getByTestId('lang-switch').click();
    await page.getByTestId('preset-select').selectOption('serving');
    await page.getByTestId('plan-tab-3').click(); // 4×H200
    // A fresh stream (the scenario's reuses long documents).
    await page.getByTestId('lever-stream-on').uncheck();
    await page.getByTestId('lever-stream-on').check();
    for (const [id, v] of [['stream-prompt', '2048'], ['stream-output', '256'], ['stream-rate', '2']] as const) {
      await page.getByTestId(id).fill(v);
      await page.getByTestId(id).press('Enter');
    }
    // Pools need an engine that batches continuously.
    await page.getByTestId('lever-engine').selectOption('vllm');
    await expect(page.getByTestId('disagg-panel')).toHaveCount(0);
    await page.getByTestId('levers-disagg').locator('summary').click();
    // TP 4 on 4 GPUs is one replica: nothing to split yet.
    await page.getByTestId('lever-tp').fill('4');
    await page.getByTestId('lever-tp').press('Enter');
    await expect(page.getByTestId('disagg-needs')).toBeVisible();
    await page.getByTestId('lever-tp').fill('2');
    await page.getByTestId('lever-tp').press('Enter');
    await expect(page.getByTestId('lever-dp')).toHaveValue('2');
    await expect(page.getByTestId('disagg-needs')).toHaveCount(0);
    await page.getByTestId('lever-disagg-on').check();
    const panel = page.getByTestId('disagg-panel');
    await expect(panel).toBeVisible();
    await expect(page.getByTestId('lever-prefill-tp')).toHaveValue('2');
    await expect(page.getByTestId('lever-decode-replicas')).toHaveValue('1');
    await expect(page.getByTestId('disagg-prefill-shape').locator('dd')).toHaveText('2 × 1');
    await expect(page.getByTestId('disagg-decode-shape').locator('dd')).toHaveText('2 × 1');
    await expect(panel.locator('h4').first()).toHaveText(lang === 'zh' ? '预填充池' : 'prefill pool');
    await expect(page.getByTestId('disagg-link').locator('dd')).toContainText('NVLink');
    for (const f of ['transfer', 'ttft_p50', 'tpot_p50', 'max_rate', 'bottleneck']) {
      await expect(page.getByTestId(`disagg-${f}`), f).toBeVisible();
    }
    await expect(page.getByTestId('disagg-prefill-fit').locator('dd')).toHaveText(lang === 'zh' ? '放得下' : 'Fits');
    await panel.screenshot({ path: `${shots}/disagg-${lang}.png` });
    await page.getByTestId('levers-disagg').screenshot({ path: `${shots}/disagg-levers-${lang}.png` });
    // The whole page at desktop width; on a phone, the screen the panel
    // scrolls into.
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.screenshot({ path: `${shots}/disagg-page-1440-${lang}.png`, fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await panel.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${shots}/disagg-page-390-${lang}.png` });
    await page.setViewportSize({ width: 1400, height: 1000 });
    // Sending the KV cache layer by layer hides it behind the prefill: the
    // transfer that follows the prefill shrinks.
    const transfer = page.getByTestId('disagg-transfer').locator('dd');
    const whole = (await transfer.textContent()) ?? '';
    await expect(page.getByTestId('lever-kv-transfer')).toHaveValue('after_prefill');
    await page.getByTestId('lever-kv-transfer').selectOption('layer_by_layer');
    await expect(transfer).not.toHaveText(whole);
    await page.getByTestId('lever-kv-transfer').selectOption('after_prefill');
    await expect(transfer).toHaveText(whole);
    // A 70B prefill pool of TP 1 does not fit one H200: the pool says so
    // and no latency is shown for a stream nothing got through.
    await page.getByTestId('lever-prefill-tp').fill('1');
    await page.getByTestId('lever-prefill-tp').press('Enter');
    await expect(page.getByTestId('disagg-prefill-shape').locator('dd')).toHaveText('1 × 1');
    await expect(page.getByTestId('disagg-prefill-fit').locator('dd')).toHaveText(lang === 'zh' ? '放不下' : 'Does not fit');
    await expect(page.getByTestId('disagg-ttft_p50').locator('dd')).toHaveText('—');
    // Off again: the panel goes, the plan serves as one pool.
    await page.getByTestId('lever-disagg-on').uncheck();
    await expect(panel).toHaveCount(0);
    expect(w.errors).toEqual([]);
  });
}

// An MoE model's routed experts take a format of their own (gpt-oss ships
// MXFP4 experts beside BF16 attention, and a serving plan starts from
// them); a dense model shows no such lever.
test('an MoE plan stores its routed experts in their own format', async ({ page }) => {
  const w = watch(page);
  await open(page);
  await page.getByTestId('preset-select').selectOption('serving');
  await expect(page.getByTestId('lever-experts-precision')).toHaveCount(0);
  // A catalog model that ships quantized is served as it ships.
  await page.getByTestId('model-select').selectOption('gpt-oss-120b');
  const experts = page.getByTestId('lever-experts-precision');
  await expect(experts).toHaveValue('mxfp4');
  // vLLM's pool takes what the weights leave: BF16 experts leave less.
  const pool = page.getByTestId('serving-kv_pool_tokens').locator('dd');
  const before = await pool.textContent();
  await experts.selectOption('same');
  await expect(pool).not.toHaveText(before ?? '');
  await expect(experts).toHaveValue('same');

  // A checkpoint's config.json with its quantization_config: a serving
  // plan takes the formats it ships, and the page says so.
  await page.getByTestId('model-select').selectOption('llama3.1-8b');
  await expect(page.getByTestId('lever-experts-precision')).toHaveCount(0);
  await page.getByTestId('hf-config').fill(JSON.stringify({
    model_type: 'gpt_oss', _name_or_path: 'openai/gpt-oss-20b', hidden_size: 2880,
    intermediate_size: 2880, num_hidden_layers: 24, num_attention_heads: 64,
    num_key_value_heads: 8, head_dim: 64, vocab_size: 201088, max_position_embeddings: 131072,
    num_local_experts: 32, num_experts_per_tok: 4, sliding_window: 128,
    quantization_config: { quant_method: 'mxfp4' },
  }));
  await page.getByTestId('hf-import').click();
  await expect(page.getByTestId('hf-shipped')).toContainText('mxfp4');
  await expect(page.getByTestId('lever-experts-precision')).toHaveValue('mxfp4');
  await expect(page.getByTestId('lever-weights-precision')).toHaveValue('bf16');
  expect(w.errors).toEqual([]);
});

// The search ranks a serving plan by its batch's figures; each plan it
// lists with a request stream also says how it serves the stream, so a
// plan that fits but misses the targets reads as missed.
test('the plans the search lists say how they serve the stream', async ({ page }) => {
  test.setTimeout(180_000);
  const w = watch(page);
  await open(page);
  await page.getByTestId('preset-select').selectOption('serving');
  await expect(page.getByTestId('stream-verdict')).toBeVisible();
  const budget = page.getByTestId('gpu-budget');
  await budget.fill('4');
  await budget.press('Enter');
  await budget.blur();
  await page.getByTestId('find-best').click();
  await expect(page.getByTestId('found-list')).toBeVisible({ timeout: 150_000 });
  const verdicts = page.getByTestId('found-verdict');
  expect(await verdicts.count()).toBeGreaterThan(0);
  const served = await verdicts.evaluateAll((els) => els.map((e) => e.getAttribute('data-served')));
  for (const s of served) expect(['keeps_up', 'meets_slo', 'misses_slo', 'unsustainable']).toContain(s);
  await expect(verdicts.first()).toContainText(/Meets its SLOs|Misses its SLOs|Cannot keep up|Keeps up/);
  expect(w.errors).toEqual([]);
});
