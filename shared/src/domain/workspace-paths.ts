import { ValidationError } from '../errors';

/**
 * The sandbox rules of the memory workspace (SPEC §3.5): which paths the agent's file tools may touch. Every
 * refusal is a WorkspacePathError whose message tells the agent what to do instead, because the agent reads
 * it as a tool result and should be able to correct its call on the next step.
 */

export const WORKSPACE_LIMITS = {
  /** Notes are short markdown; a cap keeps one write from bloating every clone and the model's context. */
  maxFileBytes: 100_000,
  maxPathChars: 200,
  maxDepth: 8,
} as const;

export const ALLOWED_SUFFIXES = ['.md', '.txt', '.json'] as const;
/** The policy engine keeps its rulebase in the workspace under policy/ (SPEC §3.6). */
export const POLICY_DIR = 'policy';
export const POLICY_SUFFIX = '.rules';

export type WorkspacePathProblem =
  | 'empty'
  | 'too_long'
  | 'too_deep'
  | 'bad_character'
  | 'absolute'
  | 'parent_segment'
  | 'git_dir'
  | 'bad_suffix'
  | 'symlink'
  | 'too_large'
  | 'not_a_file'
  | 'not_a_folder';

export class WorkspacePathError extends ValidationError {
  readonly problem: WorkspacePathProblem;
  readonly path: string;

  constructor(problem: WorkspacePathProblem, path: string, message: string) {
    super(message, { problem, path });
    this.problem = problem;
    this.path = path;
  }
}

function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

function refuse(problem: WorkspacePathProblem, path: string, message: string): never {
  throw new WorkspacePathError(problem, path, message);
}

/**
 * Checks a path the agent gave and returns it normalised (forward slashes, no `./` or empty segments),
 * relative to the workspace root. `kind: 'dir'` is for list/search scopes, where '' means the root and no
 * suffix applies.
 */
export function normalizeWorkspacePath(input: string, kind: 'file' | 'dir' = 'file'): string {
  const shown = JSON.stringify(input);
  if (hasControlCharacter(input)) {
    refuse(
      'bad_character',
      input,
      `Path ${shown} contains a control character (such as NUL); use plain text names.`,
    );
  }
  if (input.includes('\\')) {
    refuse('bad_character', input, `Path ${shown} contains a backslash; separate folders with "/".`);
  }
  if (input.startsWith('/') || /^[A-Za-z]:/.test(input) || input.startsWith('~')) {
    refuse(
      'absolute',
      input,
      `Path ${shown} is absolute; use a path relative to the workspace root, e.g. "areas/maintenance.md".`,
    );
  }
  const segments = input.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) {
    refuse(
      'parent_segment',
      input,
      `Path ${shown} uses ".."; paths must stay inside the workspace, e.g. "daily_notes/2025-01-31_leads.md".`,
    );
  }
  if (segments.some((s) => s.toLowerCase() === '.git')) {
    refuse('git_dir', input, `Path ${shown} is inside the ".git" folder, which the file tools never touch.`);
  }
  const path = segments.join('/');
  if (path.length > WORKSPACE_LIMITS.maxPathChars) {
    refuse(
      'too_long',
      input,
      `Path ${shown} is longer than ${WORKSPACE_LIMITS.maxPathChars} characters; use a shorter name.`,
    );
  }
  if (segments.length > WORKSPACE_LIMITS.maxDepth) {
    refuse('too_deep', input, `Path ${shown} is nested more than ${WORKSPACE_LIMITS.maxDepth} folders deep.`);
  }
  if (kind === 'dir') return path;

  if (path === '') refuse('empty', input, 'The path is empty; give a file path such as "MEMORY.md".');
  const name = segments[segments.length - 1] as string;
  const suffix = name.includes('.') ? name.slice(name.lastIndexOf('.')).toLowerCase() : '';
  const policyRules = segments[0] === POLICY_DIR && suffix === POLICY_SUFFIX;
  if (!(ALLOWED_SUFFIXES as readonly string[]).includes(suffix) && !policyRules) {
    refuse(
      'bad_suffix',
      input,
      `Path ${shown} has ${suffix ? `the suffix "${suffix}"` : 'no suffix'}; the workspace only holds ${ALLOWED_SUFFIXES.join(', ')} files (and ${POLICY_SUFFIX} under ${POLICY_DIR}/). Rename it, e.g. "${name.replace(/\.[^.]*$/, '')}.md".`,
    );
  }
  return path;
}

/** Refuses content over the size cap; `bytes` is the UTF-8 length. */
export function assertWorkspaceFileSize(path: string, bytes: number): void {
  if (bytes > WORKSPACE_LIMITS.maxFileBytes) {
    refuse(
      'too_large',
      path,
      `"${path}" would be ${bytes} bytes; files are capped at ${WORKSPACE_LIMITS.maxFileBytes} bytes. Split it into smaller notes or summarise older parts.`,
    );
  }
}

/**
 * Refuses a path if it, or any folder on the way to it, is a symbolic link: a link could point outside the
 * workspace even though the path itself looks contained. `isSymlink` is the caller's lstat probe (relative
 * path → true when that entry exists and is a link), so this module stays free of I/O.
 */
export async function assertNoSymlinks(path: string, isSymlink: (relative: string) => Promise<boolean>) {
  const segments = path.split('/').filter(Boolean);
  for (let i = 1; i <= segments.length; i++) {
    const prefix = segments.slice(0, i).join('/');
    if (await isSymlink(prefix)) {
      refuse(
        'symlink',
        path,
        `"${prefix}" is a symbolic link; the file tools do not follow links. Use a regular file path.`,
      );
    }
  }
}
