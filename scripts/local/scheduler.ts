import { CronExpressionParser } from 'cron-parser';

export interface LocalSchedule {
  name: string;
  everyMinutes: number;
  invoke: () => Promise<unknown>;
}

/** The local stand-in for EventBridge: fires each schedule on its cron (`*\/n * * * *`). */
export function startScheduler(schedules: LocalSchedule[], onError: (name: string, e: unknown) => void) {
  const timers = new Set<NodeJS.Timeout>();
  let stopped = false;
  const arm = (s: LocalSchedule) => {
    if (stopped) return;
    const next = CronExpressionParser.parse(`*/${s.everyMinutes} * * * *`).next().getTime();
    const t = setTimeout(
      async () => {
        timers.delete(t);
        try {
          await s.invoke();
        } catch (e) {
          onError(s.name, e);
        }
        arm(s);
      },
      Math.max(1000, next - Date.now()),
    );
    timers.add(t);
  };
  for (const s of schedules) arm(s);
  return {
    stop() {
      stopped = true;
      for (const t of timers) clearTimeout(t);
    },
  };
}
