import type { Conversation, Message, PendingIntent } from '../contracts/conversations';
import type { NotifyPayload } from '../contracts/events';
import type { PersonalPreferences } from '../contracts/preferences';
import type { Usage } from '../contracts/runs';
import { costUsd } from '../domain/model-pricing';
import { ConflictError } from '../errors';
import type { ActionStore } from '../ports/action-store';
import type { AuditLog } from '../ports/audit-log';
import type { ConversationStore } from '../ports/conversation-store';
import type { EventQueue } from '../ports/event-queue';
import type { IntentStore } from '../ports/intent-store';
import type { LessonBook } from '../ports/lessons';
import type { Log } from '../ports/logger';
import type { MediaFetcher, MediaStore } from '../ports/media-store';
import type { Model, ModelUsage } from '../ports/model';
import type { RunStore } from '../ports/run-store';
import type { ToolGuard } from '../ports/tool-guard';
import type { TurnStore } from '../ports/turn-store';
import type { ToolRegistry } from '../tools/registry';
import type { CardPeopleDeps } from './card-people';
import type { CardTimerSettings } from './card-timers';
import type { DurableRun } from './durable-run';
import type { OpenTurn } from './turn';
import type { StagedFactWrites } from './turn-fact-cache';
import type { PlannedCall, Trigger } from './types';

export interface AgentDeps {
  /** The turn's one partition read and one-transaction commit (agent/turn.ts); absent → per-record writes. */
  turns?: TurnStore;
  /** The turn opened on a conversation, when one is (set by openTurn). */
  turn?: OpenTurn;
  conversations: ConversationStore;
  actions: ActionStore;
  intents: IntentStore;
  runs: RunStore;
  audit: AuditLog;
  queue: EventQueue;
  log: Log;
  clock: () => Date;
  registry: ToolRegistry;
  guard: ToolGuard;
  /** Absent → rules mode. */
  model?: Model;
  /**
   * Claude mode's model reviewers (cards #18): the plan and execution reviews by the helper model, the rule
   * reviewer as the floor. Set by the composition (the same model); absent → the rule reviewer alone.
   */
  reviewModel?: Model;
  settings: {
    /** One thread per person: how recent a person's conversation must be to take their message (days). */
    threadWindowDays?: number;
    teamName: string;
    timezone: string;
    maxIterations: number;
    intentTtlMinutes: number;
    tokenBudget: number;
    staleExecutingMs: number;
    /** The team's own email domains: mail from them that passes DMARC is a team request (issue 17). */
    teamDomains?: string[];
  };
  adminInstructions?: () => Promise<string | undefined>;
  /** A person's own preferences (follow #20), cached per container: the planners read their zone and defaults. */
  personalPreferences?: (userId: string) => Promise<PersonalPreferences>;
  /** Policy hooks: feed read results into the fact store, and summarise established facts for the model. */
  policy?: {
    observe(
      conversationId: string,
      tool: string,
      args: Record<string, unknown>,
      result: unknown,
      now: Date,
    ): Promise<void>;
    summary(conversationId: string, now: Date): Promise<string>;
    /** Holds the conversation's facts in memory for the turn (`readNow`: read them at once); returns the release. */
    holdFacts?(conversationId: string, writes?: StagedFactWrites, opts?: { readNow?: boolean }): () => void;
  };
  /** Inbound photos: records written with the message; bytes fetched for the model in Claude mode. */
  media?: MediaStore;
  mediaFetcher?: MediaFetcher;
  /** Expiry and urgent re-notification timers for cards that wait for a person. */
  cardTimers?: CardTimerSettings;
  /** Lessons learned from the team's decisions (cards #18): counted there, applied to rules-mode drafts. */
  lessons?: LessonBook;
  /** The address book, lines and mailbox a card's FROM/TO are named from (cards #18). */
  cardPeople?: CardPeopleDeps;
  memory?: {
    /** MEMORY.md and the tree, capped, for the instructions. */
    context(): Promise<string>;
    /** Commit and push what the turn changed; returns conflicts to resolve next turn. */
    afterTurn(turn: { conversationId: string; summary: string }): Promise<{
      changed: boolean;
      conflicts: string[];
    }>;
  };
}

export interface StartRun {
  conversation: {
    id: string;
    create: () => Conversation;
    inbound: InboundMessage[];
  };
  trigger: Trigger;
  runId: string;
  eventIds: string[];
  key: string;
  user?: { id: string; email: string };
  /** A fixed answer instead of planning: the pending-action gate's reply to a team member who texted. */
  reply?: string;
  /**
   * A write decided elsewhere instead of planning (a research task's writing step): it goes through the
   * guard and reviewer and becomes a card like any planned write; the run then says how it ended.
   */
  proposal?: PlannedCall;
  /** Stored messages that carry the trigger itself (kept out of the history, as the trigger is sent anyway). */
  messageIds?: string[];
  /**
   * What the caller adds once the run has ended or paused (follow's lead state and assignment after an
   * inbound message), with the turn's deps: its writes join the run's last commit instead of costing their own.
   */
  settle?: (deps: AgentDeps) => Promise<void>;
}

/** An inbound message written when the conversation first shows output, with its photos (our ids only). */
export interface InboundMessage {
  id: string;
  text: string;
  at: string;
  author: string;
  media?: Array<{ id: string; type: string | null }>;
  /** An email's sender line and subject, kept apart so a card shows the email it answers. */
  email?: { from: string; subject: string };
}

/** The run's input step: what it is about, fixed on the first attempt so every replay sees the same. */
export interface RunInput {
  trigger: Trigger;
  pendingIntent: PendingIntent | null;
  reply?: string;
  proposal?: PlannedCall;
  messageIds?: string[];
}

export const emptyUsage = (): Usage => ({
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  costUsd: 0,
  modelCalls: 0,
});

/** What one run knows while it goes: its deps, its durable steps, the trigger, the conversation, the usage. */
export class RunContext {
  usage: Usage = emptyUsage();
  memoryTouched = false;
  conversation?: Conversation;
  /** The trigger as stored in the run's input step (a resumed run is started without one). */
  trigger?: Trigger;
  triggerMessageIds = new Set<string>();
  mode: 'claude' | 'rules';
  /** Reads made before the conversation existed: written into its activity when it is created. */
  private readNotes: Message[] = [];

  constructor(
    readonly deps: AgentDeps,
    readonly durable: DurableRun,
    readonly start: StartRun,
  ) {
    this.mode = durable.run.mode;
  }

  get convId() {
    return this.start.conversation.id;
  }

  get runId() {
    return this.durable.run.id;
  }

  /** Creates the team conversation on the first visible output (a NO_ACTION_NEEDED run creates none). */
  async ensureConversation(): Promise<Conversation> {
    if (this.conversation) return this.conversation;
    let c = await this.deps.conversations.get(this.convId);
    if (!c) {
      c = this.start.conversation.create();
      await this.deps.conversations.create(c).catch((e) => {
        if (!(e instanceof ConflictError)) throw e;
      });
    }
    for (const m of this.start.conversation.inbound) {
      await this.deps.conversations.appendMessage({
        id: m.id,
        conversationId: this.convId,
        role: 'inbound',
        text: m.text,
        createdAt: m.at,
        channel: this.start.trigger.kind === 'inbound_email' ? 'email' : 'sms',
        author: { kind: 'contact', name: m.author },
        ...(m.media?.length ? { media: m.media } : {}),
        ...(m.email ? { email: m.email } : {}),
      });
    }
    this.conversation = c;
    for (const m of this.readNotes.splice(0)) await this.deps.conversations.appendMessage(m);
    return c;
  }

  /**
   * What the assistant read, shown in the conversation's activity (issue 17: "reads the assistant made are
   * visible"), so a person can see what an answer rests on. A run that ends with no visible output (bulk mail,
   * a closing "thanks") creates no conversation for its reads alone: they wait for the first visible output
   * and are dropped with the run otherwise. Staged in the turn's transaction like any message.
   */
  async noteRead(m: Message): Promise<void> {
    if (this.conversation) await this.deps.conversations.appendMessage(m);
    else this.readNotes.push(m);
  }

  /** Adds a model call's usage; true when the run has used up its token budget. */
  addUsage(u: ModelUsage, model: string): boolean {
    this.usage.inputTokens += u.inputTokens;
    this.usage.outputTokens += u.outputTokens;
    this.usage.cacheReadTokens += u.cacheReadTokens;
    this.usage.cacheWriteTokens += u.cacheWriteTokens;
    this.usage.modelCalls += 1;
    this.usage.costUsd += costUsd(model, u);
    return this.usage.inputTokens + this.usage.cacheReadTokens > this.deps.settings.tokenBudget * 4;
  }

  async notify(
    kind: NotifyPayload['kind'],
    title: string,
    body: string,
    actionId?: string,
    /**
     * An approval card's hash and expiry: its notification gets Approve / Deny (cards #18); whether it is
     * urgent, and its route to the assignee first (issue 19).
     */
    card?: { argsHash: string; expiresAt?: string; urgent?: boolean; route?: NotifyPayload['route'] },
  ) {
    const at = this.deps.clock().toISOString();
    const trigger = this.trigger ?? this.start.trigger;
    // Urgent matters reach everyone who chose them, at any hour (issue 19).
    const urgent =
      card?.urgent === true ||
      this.conversation?.urgent !== undefined ||
      (trigger.kind === 'inbound_sms' && trigger.urgent);
    await this.deps.queue.send({
      // Deterministic id: a replayed step re-sends the same event, which the worker's ledger de-duplicates.
      id: `notify_${actionId ?? `${this.runId}_${this.durable.nextSeq}`}`,
      type: 'notify',
      correlationId: `conv:${this.convId}`,
      key: `notify:${this.convId}`,
      occurredAt: at,
      payload: {
        kind,
        conversationId: this.convId,
        title: title.slice(0, 120),
        body: body.slice(0, 500),
        ...(actionId ? { actionId } : {}),
        ...(card
          ? { argsHash: card.argsHash, ...(card.expiresAt ? { expiresAt: card.expiresAt } : {}) }
          : {}),
        ...(urgent ? { urgent: true } : {}),
        ...(card?.route && !urgent ? { route: card.route } : {}),
        ...(this.conversation?.contact
          ? { contact: { name: this.conversation.contact.name, phone: this.conversation.contact.phone } }
          : {}),
      },
    });
  }
}
