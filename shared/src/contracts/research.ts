import { z } from 'zod';

/**
 * Research tasks (SPEC §3.7, issue 21): a goal split into a graph of nodes that run as separate queue
 * messages. Shared by the worker, the API and the PWA (the plan review screen and the live tree).
 */

export const nodeStatus = z.enum([
  'PENDING',
  'READY',
  'RUNNING',
  'PLAN_DONE',
  'AGGREGATING',
  'DONE',
  'FAILED',
  'CANCELLED',
]);
export type NodeStatus = z.infer<typeof nodeStatus>;

/**
 * `plan` nodes are split further; the others are atomic and run one executor each. A `write` node never
 * writes: it drafts the write tool's arguments and proposes them as an approval card (the normal guard).
 */
export const nodeKind = z.enum(['plan', 'read', 'compute', 'web', 'write']);
export type NodeKind = z.infer<typeof nodeKind>;

const argValue = z.union([z.string().max(500), z.number(), z.boolean()]);

export interface PlanItem {
  /** Local to its siblings ("a", "contact"); dependencies name siblings by key. */
  key: string;
  goal: string;
  kind: NodeKind;
  /** Read/web nodes: the tool to call. Arguments may hold `{{fact}}` placeholders filled from dependencies. */
  tool?: string | undefined;
  args?: Record<string, string | number | boolean> | undefined;
  /** Compute nodes: JavaScript for the sandbox (written by the model, or by a person in the review). */
  code?: string | undefined;
  dependsOn: string[];
  /** Plan nodes: their sub-plan when it is known up front (templates, or a person's edit). */
  subtasks?: PlanItem[] | undefined;
}

export const MAX_PLAN_ITEMS = 12;
export const planItem: z.ZodType<PlanItem> = z.lazy(() =>
  z.object({
    key: z
      .string()
      .trim()
      .regex(/^[a-z0-9_-]{1,24}$/i, 'key must be 1-24 letters, digits, _ or -'),
    goal: z.string().trim().min(3).max(500),
    kind: nodeKind,
    tool: z.string().trim().min(1).max(60).optional(),
    args: z.record(z.string().max(60), argValue).optional(),
    code: z.string().max(20_000).optional(),
    dependsOn: z.array(z.string().max(24)).max(MAX_PLAN_ITEMS).default([]),
    subtasks: z.array(planItem).max(MAX_PLAN_ITEMS).optional(),
  }),
);
export const plan = z.array(planItem).min(1).max(MAX_PLAN_ITEMS);

export const nodeOutput = z.object({
  /** Markdown a person reads (the node's finding, or its aggregation). */
  summary: z.string(),
  /** Facts later nodes may use in their arguments (`phone`, `email`, `name`). */
  facts: z.record(z.string(), z.string()).optional(),
  data: z.unknown().optional(),
  /**
   * A writing step's draft: the write it proposes. The task never runs it; a run in the task's conversation
   * passes it through the guard and reviewer like any other write, and it becomes an approval card.
   */
  proposal: z
    .object({ tool: z.string(), args: z.record(z.string(), z.unknown()), summary: z.string() })
    .optional(),
});
export type NodeOutput = z.infer<typeof nodeOutput>;

/** What a node was given when it ran: the goal, its parent's plan and what the nodes it waited for found. */
export const nodeContext = z.object({
  goal: z.string(),
  parentGoal: z.string().optional(),
  parentPlan: z.array(z.string()).optional(),
  facts: z.record(z.string(), z.string()).default({}),
  inputs: z.array(z.object({ nodeId: z.string(), goal: z.string(), summary: z.string() })).default([]),
});
export type NodeContext = z.infer<typeof nodeContext>;

export const researchNode = z.object({
  taskId: z.string(),
  id: z.string(),
  parentId: z.string().optional(),
  depth: z.number().int().nonnegative(),
  goal: z.string(),
  kind: nodeKind,
  tool: z.string().optional(),
  args: z.record(z.string(), argValue).optional(),
  code: z.string().optional(),
  subtasks: z.array(planItem).optional(),
  status: nodeStatus,
  dependsOn: z.array(z.string()).default([]),
  dependents: z.array(z.string()).default([]),
  children: z.array(z.string()).default([]),
  /** Dependencies not yet finished; the decrement that reaches 0 makes the node READY (conditional write). */
  pendingDeps: z.number().int(),
  /** Children not yet finished; the decrement that reaches 0 starts the aggregation. */
  pendingChildren: z.number().int().default(0),
  attempts: z.number().int().default(0),
  createdAt: z.string(),
  readyAt: z.string().optional(),
  startedAt: z.string().optional(),
  finishedAt: z.string().optional(),
  leaseUntil: z.string().optional(),
  context: nodeContext.optional(),
  output: nodeOutput.optional(),
  error: z.string().optional(),
  /** A plan node whose children did not all succeed: its result says what is missing. */
  degraded: z.boolean().optional(),
  tokens: z.number().int().optional(),
});
export type ResearchNode = z.infer<typeof researchNode>;

export const taskStatus = z.enum(['planning', 'review', 'running', 'done', 'failed', 'cancelled']);
export type TaskStatus = z.infer<typeof taskStatus>;

export const researchBudget = z.object({
  maxNodes: z.number().int().min(1).max(100),
  maxTokens: z.number().int().min(0),
  maxMs: z.number().int().min(1000),
});
export type ResearchBudget = z.infer<typeof researchBudget>;

export const researchTask = z.object({
  id: z.string(),
  conversationId: z.string(),
  goal: z.string(),
  mode: z.enum(['rules', 'claude']),
  /** The rules template that planned it (`contact_history`, `property_open`, `vendor_record`). */
  template: z.string().optional(),
  status: taskStatus,
  createdBy: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  deadlineAt: z.string(),
  finishedAt: z.string().optional(),
  budget: researchBudget,
  usage: z.object({ nodes: z.number().int(), tokens: z.number().int() }),
  /** The root's plan while a person reviews it (task status `review`). */
  draft: plan.optional(),
  reviewReason: z.string().optional(),
  reviewedBy: z.string().optional(),
  /** Asked for by a team member texting: the plan to review and the end are texted to them too. */
  askedByText: z.boolean().optional(),
  /** The message whose edit of the draft was saved last (a chat "remove 2" is applied once). */
  lastEditId: z.string().optional(),
  /** What the person asked the planner when they asked for a re-plan from their edits. */
  replanNote: z.string().optional(),
  reportPath: z.string().optional(),
  report: z.string().optional(),
  degraded: z.boolean().optional(),
  error: z.string().optional(),
});
export type ResearchTask = z.infer<typeof researchTask>;

export const researchView = z.object({ task: researchTask, nodes: z.array(researchNode) });
export type ResearchView = z.infer<typeof researchView>;

export const startResearchRequest = z.object({
  goal: z.string().trim().min(3).max(1000),
  conversationId: z.string().trim().min(1).max(200).optional(),
});
export const editPlanRequest = z.object({ plan });
export const replanRequest = z.object({
  plan,
  note: z.string().trim().max(1000).optional(),
});
export const startResearchResponse = z.object({ task: researchTask });
