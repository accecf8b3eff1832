import { DateTime } from 'luxon';
import type { FactValue } from './facts';

export interface BuiltinEnv {
  now: Date;
  timezone: string;
}

export interface Builtin {
  arity: number;
  /** Argument positions that must be bound when the builtin is called (checked at load, like negation). */
  inputs: number[];
  doc: string;
  /** Every solution, as full argument tuples; inputs are given, outputs are undefined. */
  solve(args: ReadonlyArray<FactValue | undefined>, env: BuiltinEnv): FactValue[][];
}

let lastClock: { ms: number; zone: string; at: DateTime } | undefined;

/**
 * Team-local wall-clock time. luxon does the zone arithmetic, so DST changes follow the tz database. The last
 * result is kept because one guard check asks for the same instant several times and each zone conversion
 * costs an Intl round-trip.
 */
function teamNow(env: BuiltinEnv): DateTime {
  const ms = env.now.getTime();
  if (lastClock?.ms !== ms || lastClock.zone !== env.timezone) {
    lastClock = { ms, zone: env.timezone, at: DateTime.fromMillis(ms, { zone: env.timezone }) };
  }
  return lastClock.at;
}

const text = (v: FactValue | undefined) => String(v ?? '');

export const BUILTINS: Record<string, Builtin> = {
  true: { arity: 0, inputs: [], doc: 'always holds', solve: () => [[]] },
  now: {
    arity: 1,
    inputs: [],
    doc: 'now(T): the current time in epoch seconds',
    solve: (_a, env) => [[Math.floor(env.now.getTime() / 1000)]],
  },
  team_time: {
    arity: 2,
    inputs: [],
    doc: "team_time(Hour, Minute): the wall-clock time in the team's timezone (0-23, 0-59)",
    solve: (_a, env) => {
      const t = teamNow(env);
      return [[t.hour, t.minute]];
    },
  },
  team_date: {
    arity: 1,
    inputs: [],
    doc: 'team_date(D): today in the team\'s timezone, "YYYY-MM-DD"',
    solve: (_a, env) => [[teamNow(env).toISODate() ?? '']],
  },
  team_weekday: {
    arity: 1,
    inputs: [],
    doc: "team_weekday(W): 1 = Monday … 7 = Sunday, in the team's timezone",
    solve: (_a, env) => [[teamNow(env).weekday]],
  },
  contains: {
    arity: 2,
    inputs: [0, 1],
    doc: 'contains(Text, Part): Part occurs in Text, ignoring case',
    solve: ([t, p]) =>
      text(t).toLowerCase().includes(text(p).toLowerCase()) ? [[t as FactValue, p as FactValue]] : [],
  },
  starts_with: {
    arity: 2,
    inputs: [0, 1],
    doc: 'starts_with(Text, Prefix): ignoring case',
    solve: ([t, p]) =>
      text(t).toLowerCase().startsWith(text(p).toLowerCase()) ? [[t as FactValue, p as FactValue]] : [],
  },
  length: {
    arity: 2,
    inputs: [0],
    doc: 'length(Text, N): N is the number of characters in Text',
    solve: ([t]) => [[t as FactValue, [...text(t)].length]],
  },
  lower: {
    arity: 2,
    inputs: [0],
    doc: 'lower(Text, L): L is Text in lower case',
    solve: ([t]) => [[t as FactValue, text(t).toLowerCase()]],
  },
};

export function isBuiltin(pred: string): boolean {
  return Object.hasOwn(BUILTINS, pred);
}
