import type {
  NodeContext,
  NodeStatus,
  PlanItem,
  ResearchNode,
  ResearchTask,
  TaskStatus,
} from '../contracts/research';

export interface ResearchGraph {
  task: ResearchTask;
  nodes: ResearchNode[];
}

export type MaterializeOutcome = 'created' | 'already' | 'over_budget';

/**
 * Research tasks and their nodes, all in one partition per task. Every state change is a conditional
 * write, so two workers (or a redelivered message) can never both start a node, both start an aggregation,
 * or count a finished dependency twice; the scheduler is the data, not a process.
 */
export interface ResearchStore {
  /** The task and its root node, together; false when the task already exists (a retried create). */
  create(task: ResearchTask, root: ResearchNode): Promise<boolean>;
  /** The task and every node, in one consistent read of the partition. */
  load(taskId: string): Promise<ResearchGraph | undefined>;
  getTask(taskId: string): Promise<ResearchTask | undefined>;
  /**
   * `from` → `to` with a lease: succeeds when the node is in `from`, or already in `to` with a lease that
   * ran out (its worker died). Records the context it runs with.
   */
  claim(
    taskId: string,
    nodeId: string,
    opts: { from: NodeStatus; to: NodeStatus; now: string; leaseUntil: string; context?: NodeContext },
  ): Promise<boolean>;
  /**
   * The root's plan, kept for a person to review (task → `review`). With `editId` (the message that asked
   * for the edit) it is applied once: false when that edit was already saved (a redelivered chat turn).
   */
  saveDraft(
    taskId: string,
    draft: PlanItem[],
    reason: string,
    now: string,
    editId?: string,
  ): Promise<boolean>;
  /** Parent RUNNING → PLAN_DONE with its children created, counted against the task's node budget. */
  materialize(input: {
    taskId: string;
    parentId: string;
    children: ResearchNode[];
    now: string;
    maxNodes: number;
    reviewedBy?: string;
  }): Promise<MaterializeOutcome>;
  /** Ends a node (DONE / FAILED / CANCELLED) if it is still in one of `from`. */
  finish(taskId: string, nodeId: string, from: NodeStatus[], patch: Partial<ResearchNode>): Promise<boolean>;
  /** RUNNING → READY for another attempt. */
  release(taskId: string, nodeId: string, patch: { attempts: number; error: string }): Promise<boolean>;
  /**
   * Counts one finished dependency or child off a node, once per `doneId` (a repeat is not applied again).
   * Returns the node's status and the counter after the call.
   */
  countDown(
    taskId: string,
    nodeId: string,
    counter: 'pendingDeps' | 'pendingChildren',
    doneId: string,
  ): Promise<{ applied: boolean; status: NodeStatus; remaining: number }>;
  /** A plain conditional transition (PENDING → READY, PLAN_DONE → AGGREGATING); true for the one winner. */
  promote(taskId: string, nodeId: string, from: NodeStatus, to: NodeStatus, now: string): Promise<boolean>;
  updateTask(taskId: string, patch: Partial<ResearchTask>, onlyFrom?: TaskStatus[]): Promise<boolean>;
  addTokens(taskId: string, tokens: number): Promise<void>;
}
