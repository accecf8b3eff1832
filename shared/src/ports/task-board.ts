/**
 * The team's task board (ClickUp in production): where maintenance and leasing work is tracked.
 */
export type TaskPriority = 'urgent' | 'high' | 'normal' | 'low';

export interface TaskList {
  id: string;
  name: string;
  space: string;
  folder?: string;
  taskCount?: number;
}

export interface BoardTask {
  id: string;
  name: string;
  description?: string;
  status: string;
  closed: boolean;
  priority?: TaskPriority;
  /** ISO 8601 (UTC). */
  dueDate?: string;
  assignees: string[];
  tags: string[];
  list: { id: string; name: string };
  url: string;
}

/** A person on the board's workspace who can be assigned work (ClickUp: a team member). */
export interface BoardMember {
  id: string;
  name: string;
  email?: string;
}

export interface NewTask {
  listId: string;
  name: string;
  description?: string;
  status?: string;
  priority?: TaskPriority;
  dueDate?: string;
  tags?: string[];
  /** Member ids (BoardMember.id) the task is assigned to. */
  assignees?: string[];
  /** Idempotency reference (the pending action id), recorded on the task so a retry can find it. */
  clientRef?: string;
}

export interface TaskPatch {
  name?: string;
  description?: string;
  status?: string;
  /** `null` clears the field. */
  priority?: TaskPriority | null;
  dueDate?: string | null;
}

export interface TaskBoard {
  listLists(): Promise<TaskList[]>;
  /** The people tasks can be assigned to (cards #18: a task card names its assignee). */
  listMembers?(): Promise<BoardMember[]>;
  getTasks(input: {
    listId: string;
    includeClosed?: boolean;
    statuses?: string[];
    limit?: number;
  }): Promise<BoardTask[]>;
  searchTasks(input: {
    query: string;
    listIds?: string[];
    includeClosed?: boolean;
    limit?: number;
  }): Promise<BoardTask[]>;
  createTask(input: NewTask): Promise<BoardTask>;
  updateTask(id: string, patch: TaskPatch): Promise<BoardTask>;
  deleteTask(id: string): Promise<void>;
  findCreated(input: { listId: string; clientRef: string }): Promise<BoardTask | undefined>;
}
