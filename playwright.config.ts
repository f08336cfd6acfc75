// Browser tests of the planner, in the system's Chromium (never a
// downloaded browser). The built planner (dist/) is served by a small
// dependency-free static server on localhost.
import { defineConfig } from '@playwright/test';

// PW_PORT (default 8081) and PW_PORT + 2 serve dist/, so several checkouts
// on one machine can run the tests at once.
const port = Number(process.env.PW_PORT ?? 8081);

export const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--no-first-run',
];

export default defineConfig({
  testDir: 'tests/e2e',
  outputDir: 'target/playwright',
  timeout: 90_000,
  workers: 1,
  reporter: [['list']],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    viewport: { width: 1400, height: 1000 },
    deviceScaleFactor: 2,
    launchOptions: {
      executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
      args: chromiumArgs,
    },
  },
  webServer: [
    {
      command: `node tests/e2e/serve.mjs dist ${port}`,
      url: `http://127.0.0.1:${port}/index.html`,
      reuseExistingServer: false,
      timeout: 30_000,
    },
    {
      // The same build under a subpath, as a project docs site hosts it.
      command: `node tests/e2e/serve.mjs dist ${port + 2} /memwall/`,
      url: `http://127.0.0.1:${port + 2}/memwall/index.html`,
      reuseExistingServer: false,
      timeout: 30_000,
    },
  ],
});
