/** The policy engine (SPEC §3.6): rulebase language, solver, guard. See docs/POLICY.md. */
export type { Atom, Literal, Statement, Term } from './ast';
export { DEFAULT_RULEBASE_FILES, loadDefaultRulebase } from './defaults';
export {
  FocusRejectedError,
  PolicyConfigError,
  PolicyQueryError,
  RulebaseError,
  type RulebaseIssue,
} from './errors';
export {
  createPolicyGuard,
  type PolicyGuard,
  type PolicyGuardOpts,
  type PolicyRuntime,
  type QueryAnswer,
  type QueryResult,
  runSeeds,
  type SeedFact,
} from './guard';
export { InMemoryFactStore } from './in-memory-fact-store';
export { loadRulebase, loadRulebases } from './load';
export { parseAtomText, parseQueryText, parseRulebaseText } from './parser';
export { renderProof } from './proof';
export { compileRulebase, type Rulebase, type ToolInfo, writesWithoutGuard } from './rulebase';
export { DEFAULT_LIMITS, type Limits, type SolveEnv } from './session';
export type { Missing, MissingQuestion, MissingTool, ProofNode, SolveResult } from './solver';
export { SPEC_TOOLS, SPEC_WRITE_TOOLS } from './spec-tools';
