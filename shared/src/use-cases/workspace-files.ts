import { createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';
import { checkEditedRulebase, savedRulebaseFiles } from '../agent/team-rulebase';
import type { SessionUser } from '../contracts/api';
import {
  type WorkspaceFileEntry,
  type WorkspaceFileResponse,
  type WriteWorkspaceFileRequest,
  writeWorkspaceFileRequest,
} from '../contracts/workspace-files';
import { textVersion } from '../domain/text-version';
import { workspaceFileAccess } from '../domain/workspace-file-access';
import { normalizeWorkspacePath, POLICY_DIR, POLICY_SUFFIX } from '../domain/workspace-paths';
import { ConflictError, describeZodIssues, ForbiddenError, ValidationError } from '../errors';
import type { Workspace } from '../ports/workspace';

export interface WorkspaceFilesDeps {
  workspace: Workspace;
}

type Person = Pick<SessionUser, 'email' | 'name' | 'isAdmin'>;

export { textVersion };

/**
 * The API keeps one working copy per container; a person's edit must be its own commit, so writes are
 * serialised per workspace (two admins saving at once never share a commit or lose one another's file).
 */
const queues = new WeakMap<Workspace, Promise<unknown>>();
function serialised<T>(ws: Workspace, fn: () => Promise<T>): Promise<T> {
  const prev = queues.get(ws) ?? Promise.resolve();
  const next = prev.then(fn, fn);
  queues.set(
    ws,
    next.catch(() => undefined),
  );
  return next;
}

/** Every file of the workspace with what this person may do with it (DESIGN.md §5). */
export async function listWorkspaceFiles(
  deps: WorkspaceFilesDeps,
  user: Person,
): Promise<{ files: WorkspaceFileEntry[] }> {
  await deps.workspace.sync();
  const files = await deps.workspace.listFiles('');
  // Before the worker's first run the policy is the shipped defaults: list them so an admin can edit them.
  const policy = await savedRulebaseFiles(deps.workspace);
  if (policy.defaults) {
    for (const [path, text] of Object.entries(policy.files))
      files.push({ path, bytes: Buffer.byteLength(text) });
    files.sort((a, b) => (a.path < b.path ? -1 : 1));
  }
  return {
    files: files.map((f) => ({ path: f.path, bytes: f.bytes, ...workspaceFileAccess(f.path, user) })),
  };
}

export async function readWorkspaceFile(
  deps: WorkspaceFilesDeps,
  user: Person,
  rawPath: string,
): Promise<WorkspaceFileResponse> {
  const path = normalizeWorkspacePath(rawPath);
  await deps.workspace.sync();
  const text = await deps.workspace.readFile(path).catch(async (e) => {
    const policy = await savedRulebaseFiles(deps.workspace);
    const fallback = policy.defaults ? policy.files[path] : undefined;
    if (fallback === undefined) throw e;
    return fallback;
  });
  return {
    path,
    bytes: Buffer.byteLength(text),
    text,
    version: textVersion(text),
    ...workspaceFileAccess(path, user),
  };
}

function isRulebaseFile(path: string): boolean {
  return path.split('/')[0] === POLICY_DIR && path.endsWith(POLICY_SUFFIX);
}

/**
 * A person saves a file from the PWA.
 * 1. Validate the request; refuse (403) a path this person may not write (policy, skills, team: admins).
 * 2. Pull; if the file changed since the editor read it, 409 with the current version.
 * 3. A policy file is checked with the other saved policy files as one rulebase: a parse or compile error is a
 *    400 listing every issue by file, line and column, and nothing is written.
 * 4. Write and commit with the person as the author; push.
 */
export async function writeWorkspaceFile(
  deps: WorkspaceFilesDeps,
  user: Person,
  input: WriteWorkspaceFileRequest,
) {
  const parsed = writeWorkspaceFileRequest.safeParse(input);
  if (!parsed.success) throw new ValidationError(describeZodIssues(parsed.error.issues));
  const { text, baseVersion, message } = parsed.data;
  const path = normalizeWorkspacePath(parsed.data.path);
  const access = workspaceFileAccess(path, user);
  if (!access.canWrite) throw new ForbiddenError(refusal(access.kind, 'change'));

  return serialised(deps.workspace, async () => {
    const ws = deps.workspace;
    await ws.sync();
    const policy = isRulebaseFile(path) ? await savedRulebaseFiles(ws) : undefined;
    const current = await ws.readFile(path).catch(() => policy?.files[path]);
    if (current !== undefined && baseVersion !== undefined && textVersion(current) !== baseVersion) {
      throw new ConflictError(`Someone saved "${path}" after you opened it; reload to see their version.`, {
        path,
        version: textVersion(current),
      });
    }
    if (current === undefined && baseVersion !== undefined) {
      throw new ConflictError(`"${path}" was deleted after you opened it; reload the list.`, { path });
    }
    if (isRulebaseFile(path)) await checkEditedRulebase(ws, path, text);
    if (current === text) return { path, version: textVersion(text), pushed: true };
    // The first edit of the shipped defaults writes all of them: the worker loads only what is in policy/,
    // so saving one file alone would silently drop the other files' rules.
    if (policy?.defaults) for (const [p, t] of Object.entries(policy.files)) await ws.writeFile(p, t);
    await ws.writeFile(path, text);
    const result = await ws.commitAndPush({
      conversationId: 'pwa',
      summary: message || `${current === undefined ? 'add' : 'update'} ${path}`,
      author: authorOf(user),
    });
    return {
      path,
      version: textVersion(text),
      ...(result.commit ? { commit: result.commit } : {}),
      pushed: result.pushed,
    };
  });
}

export async function deleteWorkspaceFile(deps: WorkspaceFilesDeps, user: Person, rawPath: string) {
  const path = normalizeWorkspacePath(rawPath);
  const access = workspaceFileAccess(path, user);
  if (!access.canDelete) throw new ForbiddenError(refusal(access.kind, 'delete'));
  return serialised(deps.workspace, async () => {
    const ws = deps.workspace;
    await ws.sync();
    // An empty rulebase falls back to the shipped defaults, so deleting policy files can never loosen checks
    // below them; deleting one of several is checked like an edit (the rest must still load together).
    if (isRulebaseFile(path)) await checkEditedRulebase(ws, path, undefined);
    await ws.deleteFile(path);
    const result = await ws.commitAndPush({
      conversationId: 'pwa',
      summary: `delete ${path}`,
      author: authorOf(user),
    });
    return { path, ...(result.commit ? { commit: result.commit } : {}), pushed: result.pushed };
  });
}

function authorOf(user: Person) {
  return { name: user.name?.trim() || user.email, email: user.email };
}

function refusal(kind: string, verb: string): string {
  if (kind === 'lesson' || kind === 'report')
    return `The system writes ${kind}s; you cannot ${verb} one by hand (an admin can delete one).`;
  return `Only admins can ${verb} ${kind} files; ask an admin to make the change.`;
}

/**
 * The saved file compared with a proposed text, as a unified diff: what an admin reads on a policy-change
 * card before approving. Computed from the file as saved now, so the diff is never the proposer's own word.
 */
export async function diffWorkspaceFile(deps: WorkspaceFilesDeps, rawPath: string, text: string) {
  const path = normalizeWorkspacePath(rawPath);
  await deps.workspace.sync();
  let current = await deps.workspace.readFile(path).catch(() => undefined);
  if (current === undefined && isRulebaseFile(path))
    current = (await savedRulebaseFiles(deps.workspace)).files[path];
  const diff =
    current === text
      ? ''
      : createTwoFilesPatch(
          current === undefined ? '/dev/null' : `a/${path}`,
          `b/${path}`,
          current ?? '',
          text,
          undefined,
          undefined,
          { context: 3, headerOptions: FILE_HEADERS_ONLY },
        );
  return {
    path,
    diff,
    exists: current !== undefined,
    ...(current !== undefined ? { version: textVersion(current) } : {}),
  };
}
