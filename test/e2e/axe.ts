import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const axePath = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

export interface AxeFinding {
  id: string;
  impact: string;
  help: string;
  nodes: string[];
}

/**
 * axe-core run in the page as it is now (WCAG 2.0/2.1 A and AA rules), returning only the serious and
 * critical findings: issue 19's bar is "none of those on every screen". Each finding names the rule and the
 * first elements, so a failing test says what to fix.
 */
export async function seriousA11y(page: Page): Promise<AxeFinding[]> {
  // Evaluated through the debugging protocol, so the app's CSP (no inline scripts) does not block it.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(readFileSync(axePath, 'utf8'));
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (...a: unknown[]) => Promise<AxeRun> } }).axe;
    type AxeRun = {
      violations: Array<{ id: string; impact?: string; help: string; nodes: Array<{ target: unknown[] }> }>;
    };
    const r = await axe.run(document, { runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] });
    return r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({
        id: v.id,
        impact: v.impact ?? '',
        help: v.help,
        nodes: v.nodes.slice(0, 3).map((n) => JSON.stringify(n.target)),
      }));
  });
}
