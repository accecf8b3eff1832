import type { Run, RunStep, StepKind } from '../contracts/runs';
import type { RunStore } from '../ports/run-store';

/**
 * Replays a run's persisted steps and records new ones (SPEC §2 "durable, resumable runs"). The loop calls
 * `step(kind, fn)` for everything whose outcome must not change on a redelivery — model calls, plans, tool
 * results. If the step was recorded by an earlier attempt its stored result is returned and `fn` is not
 * called; otherwise `fn` runs and its result is written (conditionally on the sequence number) before the
 * loop moves on. Two workers racing on one step: the loser adopts the winner's result.
 */
export class DurableRun {
  private seq = 0;
  private readonly recorded: Map<number, RunStep>;
  replayed = 0;
  written = 0;

  constructor(
    private readonly store: RunStore,
    readonly run: Run,
    steps: RunStep[],
    private readonly clock: () => Date,
  ) {
    this.recorded = new Map(steps.map((s) => [s.seq, s]));
  }

  get nextSeq() {
    return this.seq;
  }

  async step<T>(kind: StepKind, fn: () => Promise<T>): Promise<T> {
    const seq = this.seq++;
    const prior = this.recorded.get(seq);
    if (prior) {
      if (prior.kind !== kind) {
        throw new Error(
          `Run ${this.run.id} diverged at step ${seq}: stored ${prior.kind}, replay wants ${kind}`,
        );
      }
      this.replayed++;
      return prior.data as T;
    }
    const data = await fn();
    const step: RunStep = {
      runId: this.run.id,
      seq,
      kind,
      at: this.clock().toISOString(),
      data: data ?? null,
    };
    const written = await this.store.appendStep(this.run.conversationId, step);
    if (!written) {
      const winner = (await this.store.listSteps(this.run.conversationId, this.run.id)).find(
        (s) => s.seq === seq,
      );
      if (winner) return winner.data as T;
    }
    this.written++;
    this.recorded.set(seq, step);
    return (data ?? null) as T;
  }
}
