import { AppError } from '../errors';
import type { GuardVerdict, ToolCallRequest } from './tool-guard';
import { normalizeWorkspacePath } from './workspace-paths';

/**
 * What governs the agent lives in the memory workspace too, so the team can edit it (SPEC §6.8): the policy
 * rulebase, the team's settings and sensitive markers, the skills people wrote, the lessons the system records
 * from people's edits, and any instructions file. The agent's file tools may read these but never write,
 * edit or delete them, in any mode: otherwise one injected email could ask the model to append
 * `autonomous send_message when true.` to the rulebase and switch approvals off (issue 12).
 * People change them through the admin screens; the system's own code writes them from people's decisions.
 */
export const PROTECTED_FOLDERS = [
  { folder: 'policy', holds: 'the policy rulebase' },
  { folder: 'team', holds: "the team's settings and sensitive markers" },
  { folder: 'skills', holds: 'the skills the team wrote' },
  { folder: 'lessons', holds: "the lessons recorded from people's decisions" },
  { folder: 'instructions', holds: 'the system instructions' },
  { folder: 'reports', holds: "the research reports the system writes from the team's tasks" },
] as const;

/** Single files at the root that steer the agent like its instructions do. */
export const PROTECTED_FILES = [{ file: 'INSTRUCTIONS.md', holds: 'the system instructions' }] as const;

/** Every protected location as a path prefix or file, for tests and docs. */
export const PROTECTED_PATHS: readonly string[] = [
  ...PROTECTED_FOLDERS.map((p) => `${p.folder}/`),
  ...PROTECTED_FILES.map((p) => p.file),
];

export class ProtectedPathError extends AppError {
  readonly path: string;
  constructor(path: string, holds: string) {
    super(
      `"${path}" holds ${holds}, which only the team changes (an admin in the PWA). You may read it but not write, edit or delete it; to suggest a change, tell the team or use propose_policy_change.`,
      { code: 'protected_path', status: 403, details: { path } },
    );
    this.path = path;
  }
}

/**
 * What the path holds when it is protected, else undefined. Compared case-insensitively: on a
 * case-insensitive file system (a teammate's Mac clone) `Policy/x.rules` is the same file as `policy/x.rules`.
 * A path that is not a valid workspace path is judged on its raw form, so a malformed one is never waved through.
 */
export function protectedPathReason(path: string): string | undefined {
  let normal: string;
  try {
    normal = normalizeWorkspacePath(path, 'dir');
  } catch {
    normal = path.replace(/\\/g, '/').replace(/^[./]+/, '');
  }
  const lower = normal.toLowerCase();
  const first = lower.split('/')[0] ?? '';
  const folder = PROTECTED_FOLDERS.find((p) => p.folder === first);
  if (folder) return folder.holds;
  return PROTECTED_FILES.find((p) => p.file.toLowerCase() === lower)?.holds;
}

export function isProtectedPath(path: string): boolean {
  return protectedPathReason(path) !== undefined;
}

/** Refuses an agent write to a protected path; the message tells the agent what it may do instead. */
export function assertAgentMayWrite(path: string): void {
  const holds = protectedPathReason(path);
  if (holds) throw new ProtectedPathError(path, holds);
}

/**
 * The agent's tools that write the workspace, and the argument naming the file. The guard checks these
 * whatever kind a tool declares; a test lists the registry's workspace writers and compares it with this.
 */
export const WORKSPACE_WRITE_TOOLS: Readonly<Record<string, string>> = {
  write_file: 'path',
  edit_file: 'path',
  delete_file: 'path',
};

/**
 * Cards only an admin may approve: a change to what governs the agent. Anyone may deny one. The guard never
 * lets these run without a person, whatever an `autonomous` rule says.
 */
export const ADMIN_APPROVAL_TOOLS: ReadonlySet<string> = new Set(['propose_policy_change']);

/** The protected path a call would write, if any (any string argument named like a path is checked). */
export function protectedTarget(tool: string, args: Record<string, unknown>): string | undefined {
  const key = WORKSPACE_WRITE_TOOLS[tool];
  if (!key) return undefined;
  const value = args[key];
  // A workspace writer without a usable path is refused too: never allow what cannot be checked.
  if (typeof value !== 'string') return String(value);
  return isProtectedPath(value) ? value : undefined;
}

/**
 * The guard's first check, before any rule and whatever the tool's kind: a call that would write a protected
 * path is denied, and a proposed policy change always needs a person (an admin). Every guard (the policy engine, its fallback, the unit-test guard) starts with this.
 */
export function protectedWriteVerdict(call: ToolCallRequest): GuardVerdict | undefined {
  if (ADMIN_APPROVAL_TOOLS.has(call.tool)) {
    // Whatever kind the call claims and whatever a rule says: a policy change waits for an admin.
    return {
      decision: 'require_approval',
      reason: `${call.tool} changes what governs the assistant; only an admin may approve it.`,
      why: ['a change to the policy is approved by an admin, never by a rule'],
    };
  }
  const target = protectedTarget(call.tool, call.args);
  if (target === undefined) return undefined;
  const holds = protectedPathReason(target) ?? 'something only the team changes';
  return {
    decision: 'deny',
    reason: `${call.tool} may not change "${target}": it holds ${holds}, which only the team changes (an admin in the PWA).`,
    why: [
      'protected path: policy/, team/, skills/, lessons/, reports/ and the instructions are never written by the agent',
    ],
  };
}
