// Helpers shared by the browser tests: console errors and requests that
// leave the page's origin, opening the planner, whether a canvas is drawn,
// and the address's hash.
import { expect, Page, ConsoleMessage, Request } from '@playwright/test';
import { mkdirSync } from 'node:fs';

// PW_PORT moves the test server (several checkouts on one machine).
export const ORIGIN = `http://127.0.0.1:${process.env.PW_PORT ?? '8081'}`;
export const shots = 'docs/screenshots';
mkdirSync(shots, { recursive: true });

/** Records console errors and requests that leave the page's origin. */
export function watch(page: Page) {
  const errors: string[] = [];
  const foreign: string[] = [];
  page.on('console', (m: ConsoleMessage) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('request', (r: Request) => {
    const u = r.url();
    if (!(u.startsWith(ORIGIN) || u.startsWith('data:') || u.startsWith('blob:'))) foreign.push(u);
  });
  return { errors, foreign };
}

export async function open(page: Page, hash = '') {
  await page.goto('/index.html' + hash);
  await expect(page.getByTestId('verdict')).toBeVisible({ timeout: 30_000 });
}

/** Whether a canvas holds anything but one colour. */
export async function drawn(page: Page, testid: string): Promise<boolean> {
  return page.getByTestId(testid).evaluate((c: HTMLCanvasElement) => {
    if (c.width === 0 || c.height === 0) return false;
    const ctx = c.getContext('2d');
    if (!ctx) return false;
    const d = ctx.getImageData(0, 0, c.width, c.height).data;
    for (let i = 4; i < d.length; i += 4) {
      if (d[i] !== d[0] || d[i + 1] !== d[1] || d[i + 2] !== d[2] || d[i + 3] !== d[3]) return true;
    }
    return false;
  });
}

export function hashOf(page: Page): Promise<string> {
  return page.evaluate(() => window.location.hash);
}
