import { checkEditedRulebase, EDITOR_TOOLS } from '../agent/team-rulebase';
import {
  type TryPolicyRequest,
  type TryPolicyResponse,
  tryPolicyRequest,
} from '../contracts/workspace-files';
import {
  createPolicyGuard,
  InMemoryFactStore,
  parseAtomText,
  type Rulebase,
  RulebaseError,
  runSeeds,
} from '../domain/policy';
import type { SeedFact } from '../domain/policy/guard';
import { normalizeWorkspacePath, POLICY_DIR, POLICY_SUFFIX } from '../domain/workspace-paths';
import { describeZodIssues, ValidationError } from '../errors';
import type { FactValue } from '../ports/fact-store';
import type { Workspace } from '../ports/workspace';

/** `contact("+1…", "Maria")` → a seed fact held only for this evaluation. */
function sampleFact(text: string): SeedFact {
  let atom: ReturnType<typeof parseAtomText>;
  try {
    atom = parseAtomText(text);
  } catch (e) {
    throw new ValidationError(`Sample fact "${text}" is not a fact: ${e instanceof Error ? e.message : e}`);
  }
  const args: FactValue[] = atom.args.map((t) => {
    if (t.kind !== 'const')
      throw new ValidationError(`Sample fact "${text}" may hold values only, no variables.`);
    return t.value;
  });
  return { predicate: atom.pred, args, detail: 'assumed in "try it"' };
}

export interface TryPolicyDeps {
  workspace: Workspace;
  clock: () => Date;
  timezone: string;
  settings: Record<string, string | number | boolean>;
}

/**
 * "Try it" in the policy editor: evaluates a query (`qualified_lead(X)`) or a sample call ("may I
 * send_message to +1…?") against the edited, unsaved text of one policy file and the other files as saved.
 * Nothing is stored: facts live in memory for this one evaluation, and no data tool is called — what the
 * policy would fetch is shown as missing, so the admin can add it as a sample fact.
 */
export async function tryPolicy(deps: TryPolicyDeps, input: TryPolicyRequest): Promise<TryPolicyResponse> {
  const parsed = tryPolicyRequest.safeParse(input);
  if (!parsed.success) throw new ValidationError(describeZodIssues(parsed.error.issues));
  const req = parsed.data;
  const path = normalizeWorkspacePath(req.path);
  if (path.split('/')[0] !== POLICY_DIR || !path.endsWith(POLICY_SUFFIX)) {
    throw new ValidationError(`"${path}" is not a policy file (${POLICY_DIR}/*${POLICY_SUFFIX}).`);
  }
  await deps.workspace.sync();
  let rulebase: Rulebase | undefined;
  try {
    rulebase = await checkEditedRulebase(deps.workspace, path, req.text);
  } catch (e) {
    if (e instanceof RulebaseError) return { issues: e.issues };
    throw e;
  }
  if (!rulebase || (!req.query && !req.call)) return { issues: [] };
  const now = deps.clock();
  const env = { now, timezone: deps.timezone };
  const runtime = createPolicyGuard({
    rulebase,
    facts: new InMemoryFactStore(),
    conversationId: 'try-it',
    seeds: [...runSeeds({ ...env, settings: deps.settings }), ...req.facts.map(sampleFact)],
  });
  if (req.query) {
    const r = await runtime.query(req.query, env, { maxAnswers: 5 });
    return {
      issues: [],
      outcome: {
        type: 'query',
        status: r.status,
        summary: r.summary,
        answers: r.answers.map((a) => ({ bindings: a.bindings, why: a.why })),
        missing: {
          tools: r.missing.tools.map((t) => t.text),
          questions: r.missing.questions.map((q) => q.question),
          focus: r.missing.focus,
        },
      },
    };
  }
  const call = req.call as NonNullable<typeof req.call>;
  return { issues: [], outcome: await tryCall(runtime, call, env) };
}

async function tryCall(
  runtime: ReturnType<typeof createPolicyGuard>,
  call: { tool: string; args: Record<string, unknown> },
  { now, timezone }: { now: Date; timezone: string },
) {
  const kind = EDITOR_TOOLS.find((t) => t.name === call.tool)?.kind;
  if (!kind) throw new ValidationError(`"${call.tool}" is not a tool the assistant has.`);
  const verdict = await runtime.check(
    { tool: call.tool, kind, args: call.args, origin: 'model', conversationId: 'try-it' },
    {
      now,
      timezone,
      // Try it never reaches a vendor: what the policy would fetch is reported missing instead.
      callReadTool: async (name) => {
        throw new Error(`${name} is not called in "try it"; add what it would return as a sample fact`);
      },
    },
  );
  return {
    type: 'call' as const,
    decision: verdict.decision,
    reason: verdict.reason,
    why: verdict.why ?? [],
    missing: verdict.missing ?? { tools: [], questions: [] },
  };
}
