import { createHash } from 'node:crypto';
import {
  DEFAULT_RULEBASE_FILES,
  loadRulebases,
  type Rulebase,
  SPEC_TOOLS,
  type ToolInfo,
} from '../domain/policy';
import { POLICY_DIR, POLICY_SUFFIX } from '../domain/workspace-paths';
import type { Log } from '../ports/logger';
import type { Workspace } from '../ports/workspace';

/** How soon an admin's saved policy edit governs a warm container's runs and decisions. */
export const POLICY_REFRESH_MS = 60_000;

/** The rulebase files of the workspace (`policy/*.rules`), path → text; empty when there are none. */
export async function readRulebaseFiles(workspace: Workspace): Promise<Record<string, string>> {
  const listed = (await workspace.listFiles(POLICY_DIR).catch(() => [])).filter((f) =>
    f.path.endsWith(POLICY_SUFFIX),
  );
  const files: Record<string, string> = {};
  for (const f of listed) files[f.path] = await workspace.readFile(f.path);
  return files;
}

/**
 * The team's rulebase, read only (the worker seeds the defaults on first use). Without a workspace, with no
 * files yet, or with files that no longer load, the shipped defaults apply: a bad edit never switches a check off.
 */
export async function readTeamRulebase(
  workspace: Workspace | undefined,
  tools: ToolInfo[],
  log: Log,
): Promise<Rulebase> {
  const defaults = () => loadRulebases({ ...DEFAULT_RULEBASE_FILES }, { tools });
  if (!workspace) return defaults();
  try {
    await workspace.sync();
    const files = await readRulebaseFiles(workspace);
    return Object.keys(files).length ? loadRulebases(files, { tools }) : defaults();
  } catch (e) {
    log.error('policy.rulebase_invalid', { error: String(e).slice(0, 2000) });
    return defaults();
  }
}

/**
 * The tools a rulebase may name when checked outside a worker (the API has no agent composed): SPEC §3.4's,
 * plus what only the runtime adds. The worker re-checks against its real registry and keeps the shipped
 * defaults if that fails, so this list can only make the editor stricter, never loosen a running policy.
 */
export const EDITOR_TOOLS: ToolInfo[] = [
  ...SPEC_TOOLS,
  { name: 'propose_policy_change', kind: 'write' },
  { name: 'load_skill', kind: 'read' },
];

/**
 * The policy files as the worker loads them: the workspace's `policy/*.rules`, or the shipped defaults while
 * there are none yet (the worker writes them on its first run; the API may be used before that).
 */
export async function savedRulebaseFiles(
  ws: Workspace,
): Promise<{ files: Record<string, string>; defaults: boolean }> {
  const files = await readRulebaseFiles(ws);
  if (Object.keys(files).length > 0) return { files, defaults: false };
  return { files: { ...DEFAULT_RULEBASE_FILES }, defaults: true };
}

/** One policy file as saved (or as shipped while policy/ is still empty); undefined when there is none. */
export async function savedPolicyText(ws: Workspace, path: string): Promise<string | undefined> {
  const text = await ws.readFile(path).catch(() => undefined);
  if (text !== undefined) return text;
  const saved = await savedRulebaseFiles(ws);
  return saved.defaults ? saved.files[path] : undefined;
}

/** The saved policy files with one file replaced by its edited text (or removed when `text` is undefined). */
async function editedFiles(ws: Workspace, path: string, text: string | undefined) {
  const { files } = await savedRulebaseFiles(ws);
  if (text === undefined) delete files[path];
  else files[path] = text;
  return files;
}

/** Loads the edited rulebase; throws RulebaseError (400, every issue by file/line/column) when it does not. */
export async function checkEditedRulebase(ws: Workspace, path: string, text: string | undefined) {
  const files = await editedFiles(ws, path, text);
  if (Object.keys(files).length === 0) return undefined;
  return loadRulebases(files, { tools: EDITOR_TOOLS });
}

/**
 * An admin's saved edit must govern the next runs, not the next cold start. `prime()` records the policy files
 * the rulebase in force was loaded from (the working copy as it is, no pull); `load()` re-reads them (from the
 * working copy, which each turn syncs; `sync: true` pulls first, for the API) and returns a new rulebase only
 * when their text changed, else undefined. Files that no longer load give the shipped defaults, as at a cold
 * start: a bad edit never switches a check off.
 */
export function rulebaseRefresher(
  workspace: Workspace,
  tools: ToolInfo[],
  log: Log,
  opts: { sync: boolean },
) {
  let seen: string | undefined;
  const read = async () => {
    const files = await readRulebaseFiles(workspace);
    const names = Object.keys(files).sort();
    const hash = createHash('sha256')
      .update(names.map((n) => `${n}\n${files[n]}`).join('\n\0'))
      .digest('hex');
    return { files, names, hash };
  };
  return {
    async prime() {
      seen = (await read()).hash;
    },
    async load(): Promise<Rulebase | undefined> {
      if (opts.sync) await workspace.sync();
      const { files, names, hash } = await read();
      if (hash === seen) return undefined;
      seen = hash;
      if (names.length === 0) return loadRulebases({ ...DEFAULT_RULEBASE_FILES }, { tools });
      try {
        return loadRulebases(files, { tools });
      } catch (e) {
        log.error('policy.rulebase_invalid', { error: String(e).slice(0, 2000) });
        return loadRulebases({ ...DEFAULT_RULEBASE_FILES }, { tools });
      }
    },
  };
}
