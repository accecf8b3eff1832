import type { ActionStatus } from '../contracts/conversations';
import type { Run } from '../contracts/runs';
import type { ActionStore } from '../ports/action-store';
import type { EventLedger, LedgerStatus } from '../ports/event-ledger';
import type { CountMetric, Metrics } from '../ports/metrics';
import type { Model } from '../ports/model';
import type { PushSender } from '../ports/push';
import type { RunStore } from '../ports/run-store';
import type { TurnStore } from '../ports/turn-store';

/**
 * Metrics taken where the facts are already written: each decorator wraps a port the composition root
 * builds, so no use case knows about metrics and nothing adds a request (the numbers come from the values
 * being written).
 */

const LEDGER_METRIC: Partial<Record<LedgerStatus, CountMetric>> = {
  processed: 'EventsProcessed',
  coalesced: 'EventsCoalesced',
  deferred: 'EventsDeferred',
  duplicate: 'EventsDuplicate',
  dead_lettered: 'EventsDeadLettered',
};

export function meteredLedger(inner: EventLedger, metrics: Metrics): EventLedger {
  return {
    async record(entry) {
      await inner.record(entry);
      const name = LEDGER_METRIC[entry.status];
      if (name) metrics.count(name);
    },
    get: (id) => inner.get(id),
    listDay: (day) => inner.listDay(day),
  };
}

const CARD_METRIC: Partial<Record<ActionStatus, CountMetric>> = {
  APPROVED: 'CardsApproved',
  DENIED: 'CardsDenied',
  EXPIRED: 'CardsExpired',
  EXECUTED: 'CardsExecuted',
  FAILED: 'CardsFailed',
};

export function meteredActions(inner: ActionStore, metrics: Metrics): ActionStore {
  return {
    async create(a) {
      await inner.create(a);
      metrics.count('CardsCreated');
    },
    get: (c, id) => inner.get(c, id),
    listByConversation: (c) => inner.listByConversation(c),
    async transition(c, id, from, to, patch) {
      const moved = await inner.transition(c, id, from, to, patch);
      const name = CARD_METRIC[to];
      // Only the caller that won the conditional write counts the decision.
      if (moved && name) metrics.count(name);
      return moved;
    },
  };
}

/** Runs started in this container, so a run that finishes here reports how long it took. */
const STARTED_CAP = 500;

/** What a run's start and end say, whichever store wrote them (the run store or a turn's commit). */
export function runMeter(metrics: Metrics, now: () => Date) {
  const started = new Map<string, number>();
  return {
    started(run: Run) {
      if (started.size >= STARTED_CAP) started.delete(started.keys().next().value as string);
      started.set(run.id, Date.parse(run.createdAt));
    },
    updated(runId: string, patch: Partial<Run>) {
      if (patch.status !== 'completed' && patch.status !== 'failed') return;
      metrics.count(patch.status === 'completed' ? 'RunsCompleted' : 'RunsFailed');
      if (patch.usage) metrics.count('RunCostMicroUsd', Math.round(patch.usage.costUsd * 1_000_000));
      const begun = started.get(runId);
      // A run resumed after a person's decision started elsewhere; the wait for a person is not run time.
      if (begun !== undefined) metrics.milliseconds('RunDuration', now().getTime() - begun);
      started.delete(runId);
    },
  };
}
export type RunMeter = ReturnType<typeof runMeter>;

export function meteredRuns(inner: RunStore, meter: RunMeter): RunStore {
  return {
    async create(run) {
      await inner.create(run);
      meter.started(run);
    },
    get: (c, r) => inner.get(c, r),
    async update(c, r, patch) {
      await inner.update(c, r, patch);
      meter.updated(r, patch);
    },
    appendStep: (c, s) => inner.appendStep(c, s),
    listSteps: (c, r) => inner.listSteps(c, r),
    findActive: (c) => inner.findActive(c),
  };
}

/** A turn's one transaction writes runs and cards too: counted like the stores' own writes, after it commits. */
export function meteredTurns(inner: TurnStore, metrics: Metrics, meter: RunMeter): TurnStore {
  return {
    conversationIdFor: (key) => inner.conversationIdFor(key),
    load: (c, r) => inner.load(c, r),
    recentMessages: (c, limit) => inner.recentMessages(c, limit),
    async commit(c, writes) {
      await inner.commit(c, writes);
      for (const w of writes) {
        if (w.kind === 'action.create') metrics.count('CardsCreated');
        else if (w.kind === 'run.create') meter.started(w.run);
        else if (w.kind === 'run.update') meter.updated(w.runId, w.patch);
      }
    },
  };
}

export function meteredModel(inner: Model, metrics: Metrics, now: () => number = Date.now): Model {
  return {
    get name() {
      return inner.name;
    },
    async complete(req) {
      const start = now();
      try {
        const res = await inner.complete(req);
        metrics.count(
          'ModelInputTokens',
          res.usage.inputTokens + res.usage.cacheReadTokens + res.usage.cacheWriteTokens,
        );
        metrics.count('ModelOutputTokens', res.usage.outputTokens);
        return res;
      } catch (e) {
        metrics.count('ModelErrors');
        throw e;
      } finally {
        metrics.milliseconds('ModelLatency', now() - start);
      }
    },
  };
}

export function meteredPush(inner: PushSender, metrics: Metrics): PushSender {
  return {
    async send(subscription, payload, options) {
      const outcome = await inner.send(subscription, payload, options);
      if (outcome.kind === 'failed' || outcome.kind === 'retryable') metrics.count('PushFailures');
      return outcome;
    },
  };
}
