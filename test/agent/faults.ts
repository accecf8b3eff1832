import type { RunEventGroupDeps } from '../../shared/src/use-cases/run-event-group';

/** What a worker that died mid-run leaves behind: nothing it does after that point happens. */
export class SimulatedCrash extends Error {
  override name = 'SimulatedCrash';
}

/** The port methods that persist something (reads are not counted). */
const WRITES: Record<string, string[]> = {
  conversations: ['create', 'appendMessage', 'adjustPending', 'markRead'],
  actions: ['create', 'transition'],
  runs: ['create', 'update', 'appendStep'],
  intents: ['put', 'clear'],
  audit: ['append'],
  queue: ['send'],
  /** A turn's staged writes, committed together (agent/turn.ts). */
  turns: ['commit'],
};

export type CrashMode =
  /** The Nth write is persisted, then the worker dies (it never learns the write succeeded). */
  | 'after'
  /** The worker dies just before the Nth write: it is not persisted. */
  | 'before'
  /** The Nth write fails with `transientError` (e.g. DynamoDB throttling past the SDK's retries); the worker lives. */
  | 'transient';

/**
 * Wraps the agent's stores and queue so the worker "dies" at the Nth persisted write: from then on every
 * call, read or write, throws — as if the process were gone, so no catch block can tidy up. `labels` names
 * each write of the last run (`actions.transition→EXECUTED`, `runs.appendStep:tool_result` …), so a test can
 * aim at one moment of the run.
 */
export function faultInjector(transientError: () => Error = () => new SimulatedCrash('transient')) {
  let count = 0;
  let target = Number.POSITIVE_INFINITY;
  let mode: CrashMode = 'after';
  let dead = false;
  const labels: string[] = [];

  const label = (port: string, method: string, args: unknown[]) => {
    if (port === 'actions' && method === 'transition') return `actions.transition→${String(args[3])}`;
    if (port === 'runs' && method === 'appendStep')
      return `runs.appendStep:${(args[1] as { kind: string }).kind}`;
    if (port === 'queue') return `queue.send:${(args[0] as { type: string }).type}`;
    if (port === 'turns') {
      const writes = args[1] as Array<{ kind: string; step?: { kind: string }; to?: string }>;
      // A card's outcome committed with the turn is named like its direct write was (`…→EXECUTED`).
      const outcomes = writes.flatMap((w) => (w.kind === 'action.transition' ? [`→${w.to}`] : []));
      return `turns.commit:${writes.flatMap((w) => (w.step ? [w.step.kind] : [])).join(',')}${outcomes.join('')}`;
    }
    if (port === 'audit') return `audit.append:${(args[0] as { type: string }).type}`;
    return `${port}.${method}`;
  };

  function wrap<T extends object>(port: string, target_: T): T {
    const writes = WRITES[port] ?? [];
    return new Proxy(target_, {
      get(obj, prop, receiver) {
        const value = Reflect.get(obj, prop, receiver);
        if (typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          if (dead) throw new SimulatedCrash(`${port}.${String(prop)} after the crash`);
          if (!writes.includes(String(prop))) return value.apply(obj, args);
          const n = ++count;
          labels.push(label(port, String(prop), args));
          if (n === target && mode === 'transient') throw transientError();
          if (n === target && mode === 'before') {
            dead = true;
            throw new SimulatedCrash(`died before write ${n} (${labels[n - 1]})`);
          }
          const out = await value.apply(obj, args);
          if (n === target) {
            dead = true;
            throw new SimulatedCrash(`died after write ${n} (${labels[n - 1]})`);
          }
          return out;
        };
      },
    });
  }

  return {
    /** The same deps with every store and the queue behind the injector. */
    wrap(deps: RunEventGroupDeps): RunEventGroupDeps {
      return {
        ...deps,
        conversations: wrap('conversations', deps.conversations),
        actions: wrap('actions', deps.actions),
        runs: wrap('runs', deps.runs),
        intents: wrap('intents', deps.intents),
        audit: wrap('audit', deps.audit),
        queue: wrap('queue', deps.queue),
        ...(deps.turns ? { turns: wrap('turns', deps.turns) } : {}),
      };
    },
    /** Dies at write `n` (counted from now). */
    arm(n: number, m: CrashMode) {
      count = 0;
      labels.length = 0;
      target = n;
      mode = m;
      dead = false;
    },
    /** A new worker: everything works again (the count goes on, for the labels). */
    revive() {
      dead = false;
      target = Number.POSITIVE_INFINITY;
    },
    get writes() {
      return count;
    },
    get labels(): readonly string[] {
      return labels;
    },
    get dead() {
      return dead;
    },
  };
}
