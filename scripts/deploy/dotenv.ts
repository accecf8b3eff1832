import { existsSync, readFileSync } from 'node:fs';

/**
 * `NAME=value` lines of a .env file (quotes stripped, `# comments` ignored, empty values skipped). Values
 * may hold `=` (base64 keys do); a multi-line value must be written on one line (JSON keys already are).
 */
export function readDotEnv(path: string): Record<string, string> {
  if (!existsSync(path)) throw new Error(`${path} does not exist`);
  const out: Record<string, string> = {};
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const m = line.match(/^\s*(?:export\s+)?([A-Z][A-Z0-9_]*)=(.*)$/);
    if (!m) continue;
    const raw = (m[2] as string).trim();
    const quoted = raw.match(/^(['"])(.*)\1$/);
    const value = quoted ? (quoted[2] as string) : raw.replace(/\s+#.*$/, '').trim();
    if (value) out[m[1] as string] = value;
  }
  return out;
}
