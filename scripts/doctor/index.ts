import { existsSync, readFileSync } from 'node:fs';
import { blocking, formatTable, runDoctor } from './run';

/**
 * `npm run doctor`: reads the environment (and `.env` when present, without overriding the environment),
 * checks each vendor read-only, prints one table and exits 1 on a blocking problem.
 */
function dotEnv(path: string): Record<string, string> {
  if (!existsSync(path)) return {};
  const out: Record<string, string> = {};
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const m = line.match(/^\s*([A-Z][A-Z0-9_]*)=(.*)$/);
    if (!m) continue;
    const value = m[2]!
      .replace(/\s+#.*$/, '')
      .trim()
      .replace(/^(['"])(.*)\1$/, '$2');
    if (value) out[m[1]!] = value;
  }
  return out;
}

const rows = await runDoctor({ ...dotEnv('.env'), ...process.env });
console.log(formatTable(rows));
process.exit(blocking(rows) ? 1 : 0);
