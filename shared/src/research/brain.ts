import type { NodeContext, NodeOutput, PlanItem, ResearchNode, ResearchTask } from '../contracts/research';
import { aggregateChildren } from '../domain/research/describe';
import { matchTemplate, templatePlan } from '../domain/research/templates';
import { PreconditionError } from '../errors';
import { type ExecutorDeps, executeNode } from './executors';

/** A person's edited plan and note, when they ask the planner to re-plan from it. */
export interface PlanEdits {
  plan: PlanItem[];
  note?: string | undefined;
}

export interface NodeInput {
  task: ResearchTask;
  node: ResearchNode;
  context: NodeContext;
}

/**
 * The four jobs of the research graph (seed 003): plan a node into sub-tasks, decide whether a node is
 * atomic, execute an atomic node, aggregate a node's children. Rules mode does them with templates and
 * read tools; Claude mode asks the model. The engine (use-cases/run-research-node) is the same for both.
 */
export interface ResearchBrain {
  readonly mode: 'rules' | 'claude';
  plan(input: NodeInput & { edits?: PlanEdits }): Promise<{ items: PlanItem[]; tokens: number }>;
  /** Whether a `plan` node needs no splitting after all; rules mode's templates already decided. */
  atomize(
    input: NodeInput & { mustBeAtomic: boolean },
  ): Promise<{ atomic: false; tokens: number } | { atomic: true; item: PlanItem; tokens: number }>;
  execute(input: NodeInput): Promise<{ output: NodeOutput; tokens: number }>;
  aggregate(
    input: NodeInput & { children: ResearchNode[] },
  ): Promise<{ output: NodeOutput; degraded: boolean; tokens: number }>;
}

/** Rules mode: deterministic templates for the plan, read tools for the leaves, sections for the report. */
export function rulesBrain(deps: ExecutorDeps): ResearchBrain {
  return {
    mode: 'rules',
    async plan({ task, node, edits }) {
      if (edits) return { items: replanFromEdits(task, edits, deps), tokens: 0 };
      if (node.subtasks?.length) return { items: node.subtasks, tokens: 0 };
      const match = node.parentId ? undefined : matchTemplate(task.goal);
      if (!match)
        throw new PreconditionError(
          'Without a model key I can research a contact’s history (“summarise Maria Lopez’s history”), what is open at a property (“what’s open at 12 Oak St”) or a vendor’s track record (“track record of Acme Heating”).',
        );
      return {
        items: templatePlan(match, { now: deps.clock(), hasTool: (t) => deps.registry.has(t) }),
        tokens: 0,
      };
    },
    async atomize() {
      return { atomic: false, tokens: 0 };
    },
    async execute({ node, context }) {
      return { output: await executeNode(deps, node, context), tokens: 0 };
    },
    async aggregate({ node, children }) {
      const { degraded, ...output } = aggregateChildren(node, children);
      return { output, degraded, tokens: 0 };
    },
  };
}

/**
 * Rules mode re-plans from a person's edits: a top-level step whose goal now names another template subject
 * ("Identify Ana Ruiz…") is not guessed at; the edited plan is the plan, with any plan step that lost its
 * sub-steps re-expanded from the task's template when one matches its goal.
 */
function replanFromEdits(task: ResearchTask, edits: PlanEdits, deps: ExecutorDeps): PlanItem[] {
  return edits.plan.map((item) => {
    if (item.kind !== 'plan' || item.subtasks?.length) return item;
    const match = matchTemplate(item.goal) ?? matchTemplate(task.goal);
    const sub = match ? templatePlan(match, { now: deps.clock(), hasTool: (t) => deps.registry.has(t) }) : [];
    return { ...item, subtasks: sub.filter((s) => s.kind !== 'plan').map((s) => ({ ...s, dependsOn: [] })) };
  });
}
