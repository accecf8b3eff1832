import { type Config, parseConfig } from '../../shared/src/config';
import {
  type CheckContext,
  checkAnthropic,
  checkClerk,
  checkClickUp,
  checkGoogle,
  checkMemory,
  checkQuo,
  checkTwilio,
  checkVapid,
  type Row,
} from './checks';

const CHECKS = [
  checkQuo,
  checkClerk,
  checkGoogle,
  checkClickUp,
  checkTwilio,
  checkAnthropic,
  checkVapid,
  checkMemory,
];

/** Every check, in a fixed order; a configuration that does not parse is the one blocking row. */
export async function runDoctor(
  env: Record<string, string | undefined>,
  opts: { now?: Date; fetch?: typeof fetch } = {},
): Promise<Row[]> {
  let config: Config;
  try {
    config = parseConfig(env);
  } catch (e) {
    return [
      { check: 'Configuration', result: 'fail', detail: (e as Error).message, fix: 'see .env.example' },
    ];
  }
  const ctx: CheckContext = {
    config,
    now: opts.now ?? new Date(),
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
  };
  const rows: Row[] = [{ check: 'Configuration', result: 'ok', detail: 'parses' }];
  for (const check of CHECKS) rows.push(...(await check(ctx)));
  return rows;
}

const MARK = { ok: 'ok', warn: 'WARN', fail: 'FAIL', skip: '-' } as const;

/** One plain-text table: check | result | detail | fix. */
export function formatTable(rows: Row[]): string {
  const cells = rows.map((r) => [r.check, MARK[r.result], r.detail, r.fix ?? '']);
  const header = ['check', 'result', 'detail', 'fix'];
  const widths = header.map((h, i) => Math.min(60, Math.max(h.length, ...cells.map((c) => c[i]!.length))));
  const line = (c: string[]) =>
    c
      .map((x, i) => x.padEnd(widths[i]!))
      .join(' │ ')
      .trimEnd();
  return [line(header), widths.map((w) => '─'.repeat(w)).join('─┼─'), ...cells.map(line)].join('\n');
}

export const blocking = (rows: Row[]) => rows.some((r) => r.result === 'fail');
