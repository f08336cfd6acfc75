// Issue 15, guidance: a plan's name follows its content unless the user
// named it, and levers and checklist items the workload ignores are hidden
// (a serving plan shows no ZeRO or recomputation levers, and its checklist
// never says "Turn on ZeRO-1").
import { test, expect, Page } from '@playwright/test';
import { open, shots, watch } from './helpers';

const LANGS = ['en', 'zh'] as const;

async function openExample(page: Page, lang: (typeof LANGS)[number]) {
  await open(page);
  if (lang === 'zh') await page.getByTestId('lang-switch').click();
  await page.getByTestId('preset-select').selectOption('example');
  await expect(page.getByTestId('plan-tab-0')).toContainText('Llama 2 7B on 8×H100, ZeRO-1');
}

for (const lang of LANGS) {
  test(`a plan switched to 70B serving is renamed, and shows only serving levers (${lang})`, async ({ page }) => {
    const w = watch(page);
    await openExample(page, lang);
    await expect(page.getByTestId('lever-sharding')).toBeVisible();
    await expect(page.getByTestId('levers-serving')).toHaveCount(0);
    await expect(page.getByTestId('checklist')).toContainText('ZeRO-1');

    await page.getByTestId('workload-kind').selectOption('inference');
    await page.getByTestId('model-select').selectOption('llama3.1-70b');
    const tab = page.getByTestId('plan-tab-0');
    await expect(tab).toContainText('Llama 3.1 70B');
    await expect(tab).toContainText(lang === 'zh' ? '推理服务' : 'Serving');
    await expect(tab).not.toContainText('Llama 2 7B');
    await expect(page.getByTestId('rename-plan')).toHaveValue(/Llama 3\.1 70B/);

    // Training-only levers are hidden, serving ones shown.
    for (const id of ['lever-sharding', 'lever-checkpointing', 'lever-optimizer', 'offload-optimizer-tier']) {
      await expect(page.getByTestId(id), id).toHaveCount(0);
    }
    for (const id of ['levers-serving', 'lever-kv-precision', 'offload-kv-tier']) {
      await expect(page.getByTestId(id), id).toBeVisible();
    }
    // A dense model has no routed experts to move.
    await expect(page.getByTestId('offload-experts-tier')).toHaveCount(0);
    // The plan still holds ZeRO-1, but the checklist asks nothing of it.
    const list = page.getByTestId('checklist');
    await expect(list.getByTestId('checklist-item').first()).toBeVisible();
    await expect(list).not.toContainText('ZeRO');
    await expect(list).not.toContainText(lang === 'zh' ? '激活检查点' : 'activation checkpointing');

    // Back to training: the training levers return.
    await page.getByTestId('workload-kind').selectOption('pre_training');
    await expect(page.getByTestId('lever-sharding')).toBeVisible();
    await expect(page.getByTestId('levers-serving')).toHaveCount(0);
    expect(w.errors).toEqual([]);
  });
}

test('a name the user typed is kept when the content changes', async ({ page }) => {
  await openExample(page, 'en');
  const name = page.getByTestId('rename-plan');
  await name.fill('our production run');
  await expect(page.getByTestId('plan-tab-0')).toContainText('our production run');
  await page.getByTestId('model-select').selectOption('llama3.1-70b');
  await page.getByTestId('workload-kind').selectOption('inference');
  await expect(page.getByTestId('plan-tab-0')).toContainText('our production run');
  await expect(name).toHaveValue('our production run');
});

test('DP follows TP, PP and the GPU count, and stays when they do not divide', async ({ page }) => {
  const w = watch(page);
  await openExample(page, 'en');
  // The example: Llama 2 7B on 8 H100s, TP 1, PP 1, DP 8.
  const dp = page.getByTestId('lever-dp');
  await expect(dp).toHaveValue('8');
  for (const [lever, value, want] of [['lever-tp', '2', '4'], ['lever-pp', '2', '2'], ['lever-tp', '3', '2'], ['lever-tp', '1', '4']]) {
    await page.getByTestId(lever).fill(value);
    await page.getByTestId(lever).press('Enter');
    await expect(dp).toHaveValue(want);
  }
  const gpus = page.getByTestId('hw-gpus');
  await gpus.fill('16');
  await gpus.press('Enter');
  await expect(dp).toHaveValue('8');
  expect(w.errors).toEqual([]);
});

for (const lang of LANGS) {
  test(`TP that does not divide the heads marks the TP box and offers the divisors (${lang})`, async ({ page }) => {
    const w = watch(page);
    await openExample(page, lang);
    const tp = page.getByTestId('lever-tp');
    await expect(tp).not.toHaveClass(/at-fault/);
    await tp.fill('3');
    await tp.press('Enter');
    await expect(tp).toHaveClass(/at-fault/);
    await expect(tp).toHaveAttribute('aria-invalid', 'true');
    // Llama 2 7B has 32 heads: the core offers their divisors.
    const offer = page.getByTestId('fix-values').filter({ has: page.getByRole('button', { name: '32', exact: true }) }).first();
    await expect(offer).toBeVisible();
    await expect(offer).toContainText(lang === 'zh' ? '可选值' : 'Valid values');
    await expect(offer.getByTestId('fix-value')).toHaveText(['1', '2', '4', '8', '16', '32']);
    await expect(tp).toHaveAttribute('title', /1, 2, 4, 8, 16, 32/);
    await offer.getByRole('button', { name: '1', exact: true }).click();
    await expect(tp).toHaveValue('1');
    await expect(tp).not.toHaveClass(/at-fault/);
    await expect(page.getByTestId('fix-values')).toHaveCount(0);
    expect(w.errors).toEqual([]);
  });
}

// Issue 15: the core's expert offload (routed experts apart from the dense
// weights while serving an MoE model) is a lever on the page.
test('serving an MoE model offers its routed experts to offload', async ({ page }) => {
  const w = watch(page);
  await openExample(page, 'en');
  await page.getByTestId('workload-kind').selectOption('inference');
  await page.getByTestId('model-select').selectOption('mixtral-8x7b');
  const tier = page.getByTestId('offload-experts-tier');
  await expect(tier).toBeVisible();
  const margin = page.getByTestId('hbm-margin');
  const before = await margin.textContent();
  await tier.selectOption('host_dram');
  await expect(page.getByTestId('offload-experts-fraction')).toBeVisible();
  // The experts leave HBM: the margin grows.
  await expect(margin).not.toHaveText(before ?? '');
  await page.getByTestId('levers-offload').screenshot({ path: `${shots}/offload-experts-en.png` });
  // Training has no expert offload of its own (the weights' row moves them).
  await page.getByTestId('workload-kind').selectOption('pre_training');
  await expect(tier).toHaveCount(0);
  expect(w.errors).toEqual([]);
});

// TensorRT-LLM's MoE backend (engine_knobs.moe_backend) is offered where
// TensorRT-LLM serves an MoE model, and the core's note says when a plan's
// part cannot run the chosen backend.
for (const lang of LANGS) {
  test(`TensorRT-LLM serving an MoE model offers its MoE backend (${lang})`, async ({ page }) => {
    const w = watch(page);
    await openExample(page, lang);
    await page.getByTestId('workload-kind').selectOption('inference');
    await page.getByTestId('lever-engine').selectOption('trt_llm');
    const backend = page.getByTestId('lever-moe-backend');
    // A dense model has no experts to run.
    await expect(backend).toHaveCount(0);
    await page.getByTestId('model-select').selectOption('mixtral-8x7b');
    await expect(backend).toBeVisible();
    await expect(backend.locator('option')).toHaveCount(3);
    // The TRTLLM-Gen kernels are Blackwell's: on the example's H100s the
    // choice is dropped with a note naming the field.
    await backend.selectOption('trtllm');
    await expect(page.getByTestId('diagnostics')).toContainText('moe_backend');
    await page.getByTestId('levers-stream').screenshot({ path: `${shots}/moe-backend-${lang}.png` });
    // Another engine does not offer it.
    await page.getByTestId('lever-engine').selectOption('sglang');
    await expect(backend).toHaveCount(0);
    expect(w.errors).toEqual([]);
  });
}
