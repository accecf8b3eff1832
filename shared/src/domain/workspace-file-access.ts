import { protectedPathReason } from './protected-paths';
import { normalizeWorkspacePath } from './workspace-paths';

/**
 * What a person may do with each file of the memory workspace in the PWA (DESIGN.md §5). The agent's own
 * file tools are governed elsewhere (protected-paths.ts: never a protected path); this is the people's side:
 * what steers the agent (policy, team settings, skills, instructions) is changed by admins only, what the
 * system writes from decisions or research (lessons, reports) is never edited by hand, only removed by an
 * admin, and ordinary notes are the team's to read and correct.
 */
export type WorkspaceFileKind = 'policy' | 'skill' | 'lesson' | 'memory' | 'report' | 'team' | 'instructions';

export interface WorkspaceFileAccess {
  kind: WorkspaceFileKind;
  canRead: boolean;
  canWrite: boolean;
  canDelete: boolean;
}

/** The kind of file a workspace path holds, from its first folder (case-insensitive, as the agent's guard). */
export function workspaceFileKind(path: string): WorkspaceFileKind {
  const first = (normalizeWorkspacePath(path, 'dir').split('/')[0] ?? '').toLowerCase();
  switch (first) {
    case 'policy':
      return 'policy';
    case 'skills':
      return 'skill';
    case 'lessons':
      return 'lesson';
    case 'reports':
      return 'report';
    case 'team':
      return 'team';
    default:
      // instructions/ and INSTRUCTIONS.md are protected for the same reason as the policy.
      return protectedPathReason(path) ? 'instructions' : 'memory';
  }
}

/** The access a person has to one path; `isAdmin` is the verified session's role. */
export function workspaceFileAccess(path: string, user: { isAdmin: boolean }): WorkspaceFileAccess {
  const kind = workspaceFileKind(path);
  const admin = user.isAdmin;
  switch (kind) {
    case 'policy':
    case 'skill':
    case 'team':
    case 'instructions':
      return { kind, canRead: true, canWrite: admin, canDelete: admin };
    case 'lesson':
    case 'report':
      // Written by the system's own code from decisions and research; a person may only remove one.
      return { kind, canRead: true, canWrite: false, canDelete: admin };
    case 'memory':
      return { kind, canRead: true, canWrite: true, canDelete: true };
  }
}
