import type { NodeContext, PlanItem, ResearchNode } from '../../contracts/research';
import { ValidationError } from '../../errors';

/** Limits and the review rule of a research task (issue 21's defaults). */
export interface ResearchLimits {
  maxNodes: number;
  maxDepth: number;
  /** A plan with more nodes than this, or any web/compute node, waits for a person's review. */
  reviewAbove: number;
}
export const DEFAULT_RESEARCH_LIMITS: ResearchLimits = { maxNodes: 30, maxDepth: 3, reviewAbove: 6 };

/** Every node of a plan tree, depth first. */
export function flatten(items: readonly PlanItem[]): PlanItem[] {
  return items.flatMap((i) => [i, ...flatten(i.subtasks ?? [])]);
}

/** Why a plan needs a person's review before it runs, or undefined when it may run at once. */
export function reviewReason(items: readonly PlanItem[], limits: ResearchLimits): string | undefined {
  const all = flatten(items);
  const risky = all.filter((i) => i.kind === 'web' || i.kind === 'compute');
  if (risky.length) return `the plan has ${risky.length} web or compute step(s)`;
  if (all.length > limits.reviewAbove)
    return `the plan has ${all.length} steps (more than ${limits.reviewAbove})`;
  return undefined;
}

/**
 * A plan is a forest of sibling lists: keys unique among siblings, dependencies naming earlier-or-later
 * siblings without a cycle, atomic items with what they need (a tool, or code), depth within the limit.
 * Throws ValidationError naming the first problem (a person's edit gets it back as a 400).
 */
export function validatePlan(items: readonly PlanItem[], limits: ResearchLimits, depth = 1): void {
  if (depth > limits.maxDepth) throw new ValidationError(`the plan is deeper than ${limits.maxDepth} levels`);
  const keys = new Set<string>();
  for (const i of items) {
    if (keys.has(i.key)) throw new ValidationError(`step key “${i.key}” is used twice`);
    keys.add(i.key);
  }
  for (const i of items) {
    for (const d of i.dependsOn) {
      if (!keys.has(d)) throw new ValidationError(`step “${i.key}” depends on unknown step “${d}”`);
      if (d === i.key) throw new ValidationError(`step “${i.key}” depends on itself`);
    }
    if ((i.kind === 'read' || i.kind === 'web' || i.kind === 'write') && !i.tool)
      throw new ValidationError(`step “${i.key}” needs a tool`);
    if (i.kind === 'plan' && i.subtasks) validatePlan(i.subtasks, limits, depth + 1);
  }
  if (hasCycle(items)) throw new ValidationError('the steps depend on each other in a circle');
  if (flatten(items).length + 1 > limits.maxNodes)
    throw new ValidationError(`the plan has more than ${limits.maxNodes - 1} steps`);
}

/**
 * The plan without the top-level steps numbered `numbers` (1-based, as the review message lists them): a
 * step that waited for a removed one no longer waits (it runs without that step's facts).
 */
export function withoutSteps(items: readonly PlanItem[], numbers: readonly number[]): PlanItem[] {
  const bad = numbers.filter((n) => !Number.isInteger(n) || n < 1 || n > items.length);
  if (bad.length)
    throw new ValidationError(`there is no step ${bad.join(', ')}; the plan has ${items.length} steps`);
  const gone = new Set(numbers.map((n) => items[n - 1]?.key));
  return items
    .filter((i) => !gone.has(i.key))
    .map((i) => ({ ...i, dependsOn: i.dependsOn.filter((d) => !gone.has(d)) }));
}

function hasCycle(items: readonly PlanItem[]): boolean {
  const deps = new Map(items.map((i) => [i.key, i.dependsOn]));
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (k: string): boolean => {
    if (state.get(k) === 'done') return false;
    if (state.get(k) === 'visiting') return true;
    state.set(k, 'visiting');
    for (const d of deps.get(k) ?? []) if (visit(d)) return true;
    state.set(k, 'done');
    return false;
  };
  return items.some((i) => visit(i.key));
}

/**
 * The child nodes of `parent` for one level of a plan: ids `<parent>.<n>`, dependencies mapped from keys to
 * ids, and each node's dependents filled in so a finished node knows whom to count down.
 */
export function childNodes(parent: ResearchNode, items: readonly PlanItem[], now: string): ResearchNode[] {
  const idOf = new Map(items.map((i, n) => [i.key, `${parent.id}.${n + 1}`]));
  return items.map((i) => {
    const id = idOf.get(i.key) as string;
    const dependsOn = i.dependsOn.map((d) => idOf.get(d) as string);
    const dependents = items.filter((o) => o.dependsOn.includes(i.key)).map((o) => idOf.get(o.key) as string);
    return {
      taskId: parent.taskId,
      id,
      parentId: parent.id,
      depth: parent.depth + 1,
      goal: i.goal,
      kind: i.kind,
      ...(i.tool ? { tool: i.tool } : {}),
      ...(i.args ? { args: i.args } : {}),
      ...(i.code ? { code: i.code } : {}),
      ...(i.subtasks ? { subtasks: i.subtasks } : {}),
      status: dependsOn.length ? 'PENDING' : 'READY',
      dependsOn,
      dependents,
      children: [],
      pendingDeps: dependsOn.length,
      pendingChildren: 0,
      attempts: 0,
      createdAt: now,
      ...(dependsOn.length ? {} : { readyAt: now }),
    };
  });
}

/**
 * What a node is given when it starts: the task's goal, its parent's goal and plan, the facts its parent was
 * given, and the results of the nodes it waited for (their facts override inherited ones).
 */
export function contextFor(node: ResearchNode, nodes: readonly ResearchNode[], goal: string): NodeContext {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const parent = node.parentId ? byId.get(node.parentId) : undefined;
  const facts: Record<string, string> = { ...(parent?.context?.facts ?? {}) };
  const inputs: NodeContext['inputs'] = [];
  for (const id of node.dependsOn) {
    const dep = byId.get(id);
    if (!dep) continue;
    Object.assign(facts, dep.output?.facts ?? {});
    inputs.push({ nodeId: id, goal: dep.goal, summary: dep.output?.summary ?? dep.error ?? 'no result' });
  }
  return {
    goal,
    ...(parent ? { parentGoal: parent.goal } : {}),
    ...(parent ? { parentPlan: parent.children.map((c) => byId.get(c)?.goal ?? c) } : {}),
    facts,
    inputs,
  };
}

/** Fills `{{fact}}` placeholders of a node's arguments; a fact nobody found is an error naming it. */
export function fillArgs(
  args: Record<string, string | number | boolean>,
  facts: Record<string, string>,
): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(args)) {
    if (typeof v !== 'string') {
      out[k] = v;
      continue;
    }
    out[k] = v.replace(/\{\{\s*([a-z_]+)\s*\}\}/gi, (_m, name: string) => {
      const value = facts[name];
      if (value === undefined) throw new ValidationError(`no ${name} is known for this step`);
      return value;
    });
  }
  return out;
}
