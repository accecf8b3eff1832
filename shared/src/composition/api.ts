import { createWebPushSender, vapidDetailsFromConfig } from '../adapters/web-push-sender';
import { NotFoundError } from '../errors';
import type { ConversationEraser } from '../ports/conversation-eraser';
import type { NotificationChoicesStore } from '../ports/notification-choices';
import type { PushSender, PushSubscriptionStore } from '../ports/push';
import type { Workspace } from '../ports/workspace';
import type { DecideApprovalDeps } from '../use-cases/decide-approval';
import { type Core, getCore } from './core';
import { lazyDecisionDeps } from './decision-deps';
import { lazyPort } from './lazy-port';
import { buildResearchStartDeps } from './research-start';

/**
 * The approval use case's dependencies, from the composed core. Every decision is checked against the card
 * tool's own schema and the policy's preconditions (with the team's rulebase from the memory workspace when
 * there is one); both are built on the first decision of a cold start and kept.
 */
export function approvalDeps(core: Core, workspace?: () => Promise<Workspace>): DecideApprovalDeps {
  const decisionChecks = lazyDecisionDeps({
    config: core.config,
    table: core.table,
    log: core.log,
    clock: core.clock,
    ...(core.config.MEMORY_GIT_URL && workspace ? { workspace } : {}),
  });
  return {
    actions: core.actions,
    conversations: core.conversations,
    audit: core.audit,
    queue: core.queue,
    clock: core.clock,
    cardTimers: core.cardTimers,
    validateArgs: decisionChecks.validateArgs,
    ...(decisionChecks.checkDecision ? { checkDecision: decisionChecks.checkDecision } : {}),
    ...(decisionChecks.staleness ? { staleness: decisionChecks.staleness } : {}),
  };
}

/** A test push is sent while the person waits on the request (API Gateway gives up at 29 s). */
const TEST_SEND_TIMEOUT_MS = 5_000;

export interface ApiPushDeps {
  subscriptions: PushSubscriptionStore;
  /** Absent when no VAPID key pair is configured: push is off on this deployment. */
  push?: { publicKey: string; sender: PushSender };
}

export interface ApiDeps extends Core {
  approvals: DecideApprovalDeps;
  /**
   * Built on first use: a half or malformed VAPID key pair is a ConfigError (500, naming the variables,
   * never the key material) on every push route, and only there.
   */
  push(): ApiPushDeps;
  /** The memory workspace, opened on first use (most API calls never need it). */
  memoryWorkspace(): Promise<Workspace>;
  /** Research tasks: start, review (edit, approve, re-plan) and cancel; the worker runs them. */
  research: ReturnType<typeof buildResearchStartDeps>;
  /**
   * Admin delete of a conversation and its tombstones (issue 19). Here, not in the core every function
   * builds: its contracts are zod classic, which would otherwise be parsed at every cold start (issue 16 —
   * it took the webhook over its 300 KB budget).
   */
  eraser: ConversationEraser;
  /** Each person's notification choices (issue 19): here and in the worker, not in the core the webhook builds (zod classic). */
  notificationChoices: NotificationChoicesStore;
}

/** The API's graph: the core plus approvals, push and the memory workspace, built once per cold start. */
export function buildApiDeps(core: Core): ApiDeps {
  let push: ApiPushDeps | undefined;
  const memoryWorkspace = apiWorkspace(core);
  return {
    ...core,
    approvals: approvalDeps(core, memoryWorkspace),
    push: () => {
      push ??= buildPushDeps(core);
      return push;
    },
    memoryWorkspace,
    research: buildResearchStartDeps(core),
    // The stores only some routes use are built on their first call: each module brings its own zod
    // contracts, and building every route family's schemas was most of the API's init (issue 16).
    eraser: lazyPort<ConversationEraser>(async () =>
      (await import('../adapters/dynamo/conversation-eraser')).dynamoConversationEraser(core.table),
    ),
    notificationChoices: lazyPort<NotificationChoicesStore>(async () =>
      (await import('../adapters/dynamo/notification-choices-store')).dynamoNotificationChoicesStore(
        core.table,
      ),
    ),
  };
}

function buildPushDeps(core: Core): ApiPushDeps {
  const vapid = vapidDetailsFromConfig(core.config);
  return {
    subscriptions: lazyPort<PushSubscriptionStore>(async () =>
      (await import('../adapters/dynamo/push-subscription-store')).createDynamoPushSubscriptionStore({
        doc: core.dynamo.doc,
        tableName: core.config.TABLE_NAME,
      }),
    ),
    ...(vapid
      ? {
          push: {
            publicKey: vapid.publicKey,
            sender: createWebPushSender({ vapid, timeoutMs: TEST_SEND_TIMEOUT_MS }),
          },
        }
      : {}),
  };
}

/**
 * The memory workspace as the API reads it: cloned on the first request (not at cold start) into its own
 * folder, so on a shared machine it never shares a working copy with the worker. A failed clone is
 * forgotten, so the next request tries again.
 */
function apiWorkspace(core: Core): () => Promise<Workspace> {
  let ws: Promise<Workspace> | undefined;
  return () => {
    const c = core.config;
    if (!c.MEMORY_GIT_URL) {
      throw new NotFoundError(
        'The assistant has no memory workspace on this deployment (MEMORY_GIT_URL is not set).',
      );
    }
    if (!ws) {
      ws = import('../adapters/git-workspace').then(({ gitWorkspaceOptionsFromConfig, openGitWorkspace }) =>
        openGitWorkspace({
          ...gitWorkspaceOptionsFromConfig(c),
          dir: `${c.MEMORY_DIR}-api`,
          logger: core.log,
        }),
      );
      ws.catch(() => {
        ws = undefined;
      });
    }
    return ws;
  };
}

/** Rebuilt when the core is (tests and the local stack reset the composition after changing the environment). */
let cached: { core: Promise<Core>; api: Promise<ApiDeps> } | undefined;
export function getApiDeps(): Promise<ApiDeps> {
  const core = getCore('api');
  if (cached?.core !== core) cached = { core, api: core.then(buildApiDeps) };
  return cached.api;
}
