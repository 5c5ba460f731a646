// `npm run bench:inspector`: the inspector page's first paint from a warm start (the inspector running, Chromium
// started, the page loaded once): navigation start to first contentful paint, median and worst of 15 reloads.
// Issue 12 asks for under 200 ms. Not a pass/fail test: timing belongs here.
import { loadavg } from 'node:os';
import { startInspector } from '../src/inspector/server.js';
import { launch } from '../test/inspector/chromium.js';

const RUNS = 15;
const inspector = await startInspector();
const browser = await launch();
try {
  const { page } = browser;
  await page.goto(inspector.url);
  await page.locator('.bar').waitFor();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    await page.reload();
    await page.locator('.bar').waitFor();
    const fcp = (await page.evaluate(
      `new Promise((resolve) => new PerformanceObserver((list, observer) => {
        const entry = list.getEntries().find((e) => e.name === 'first-contentful-paint');
        if (entry) { observer.disconnect(); resolve(entry.startTime); }
      }).observe({ type: 'paint', buffered: true }))`,
    )) as number;
    times.push(fcp);
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)] as number;
  const worst = times[times.length - 1] as number;
  console.log(
    `inspector first contentful paint, warm, ${RUNS} reloads: median ${median.toFixed(1)} ms, worst ${worst.toFixed(1)} ms (target < 200 ms; load average ${loadavg()[0]?.toFixed(1)} on this machine)`,
  );
} finally {
  await browser.close();
  await inspector.close();
}
