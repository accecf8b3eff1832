import type { Observation, PlannedCall } from './types';

/**
 * The loop's checker (SPEC §3.2): a plan identical to the previous round's makes no progress, the same call
 * failing twice will keep failing, and a draft the reviewer rejected twice should go to a person.
 * Each method returns the reason to stop, or undefined to go on.
 */
export class Checker {
  private lastCalls = '';
  private readonly failures = new Map<string, number>();
  private reviewRejections = 0;

  repeated(calls: PlannedCall[]): string | undefined {
    const signature = JSON.stringify(calls.map((c) => [c.name, c.args]));
    if (signature === this.lastCalls) return 'I was repeating the same step without progress.';
    this.lastCalls = signature;
    return undefined;
  }

  observed(call: PlannedCall, o: Observation): string | undefined {
    if (o.status === 'refused' && o.error?.startsWith('reviewer')) this.reviewRejections++;
    if (o.status !== 'error' && o.status !== 'failed') return undefined;
    const key = `${call.name}:${JSON.stringify(call.args)}`;
    const n = (this.failures.get(key) ?? 0) + 1;
    this.failures.set(key, n);
    return n >= 2 ? `${call.name} kept failing: ${o.error ?? 'unknown error'}` : undefined;
  }

  afterRound(): string | undefined {
    return this.reviewRejections >= 2 ? 'my draft did not pass review twice' : undefined;
  }
}
