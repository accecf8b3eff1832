import { existsSync, mkdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { inject } from 'vitest';
import { buildPwa } from '../scripts/build/pwa';

const DONE = '.built';
let mine: Promise<string> | undefined;

/**
 * The PWA as `npm run build:web` ships it, built ONCE per test run into a folder the global setup names:
 * the first browser test to ask builds it (an atomic mkdir of `<dir>.lock` decides who), the others wait for
 * its `.built` marker. Each file building into web/dist cost a build per file and let one file's
 * `emptyOutDir` pull the app out from under another file's browser.
 */
export function builtPwa(): Promise<string> {
  mine ??= ensureBuilt(inject('pwaDist'));
  return mine;
}

async function ensureBuilt(dir: string): Promise<string> {
  if (existsSync(join(dir, DONE))) return dir;
  if (claim(`${dir}.lock`)) {
    await buildPwa(dir);
    await writeFile(join(dir, DONE), new Date().toISOString());
    return dir;
  }
  for (let waited = 0; waited < 180_000; waited += 250) {
    if (existsSync(join(dir, DONE))) return dir;
    await sleep(250);
  }
  throw new Error(`the PWA build in ${dir} did not finish in 180 s (another test file was building it)`);
}

function claim(lock: string): boolean {
  try {
    mkdirSync(lock);
    return true;
  } catch {
    return false;
  }
}
