import { DEFAULT_RULEBASE_FILES, loadRulebases, type Rulebase, type ToolInfo } from '../domain/policy';
import { POLICY_DIR, POLICY_SUFFIX } from '../domain/workspace-paths';
import type { Log } from '../ports/logger';
import type { Workspace } from '../ports/workspace';

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
