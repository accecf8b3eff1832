import type {
  AskableStmt,
  Atom,
  AutonomousStmt,
  BindStmt,
  ContextStmt,
  Expr,
  GuardStmt,
  Literal,
  Pos,
  RuleStmt,
  Statement,
  Term,
  ToolParam,
} from './ast';
import { BUILTINS, isBuiltin } from './builtins';
import { PolicyQueryError, RulebaseError, type RulebaseIssue } from './errors';
import type { FactValue } from './facts';
import { type PathStep, parsePath } from './json-path';
import { KEYWORDS } from './parser';

/** What load-time validation needs to know of the tool registry. */
export interface ToolInfo {
  name: string;
  kind: 'read' | 'write' | 'internal';
}

/** Facts filled by a tool and not given a `ttl` are refetched after this long. */
export const DEFAULT_TOOL_FACT_TTL_SECONDS = 300;

export interface CompiledBinding {
  stmt: BindStmt;
  pred: string;
  /** The head's variable at each argument position. */
  headVars: string[];
  /** Positions that must be known before the tool can be called (they appear in its arguments). */
  inputPositions: number[];
  each?: PathStep[];
  /** How each head position is read from a result item (inputs read here act as filters). */
  fields: Map<number, PathStep[]>;
}

export interface CompiledAskable {
  stmt: AskableStmt;
  pred: string;
  /** Head positions named in the question: any answer with these values closes the question. */
  keyPositions: number[];
}

/** A validated rulebase: the statements of one or more files, indexed for the solver and the guard. */
export interface Rulebase {
  files: string[];
  statements: Statement[];
  rules: Map<string, RuleStmt[]>;
  /** Predicates whose facts live in the fact store (bound, askable or declared `base`). */
  basePreds: Set<string>;
  arity: Map<string, number>;
  bindings: Map<string, CompiledBinding>;
  askables: Map<string, CompiledAskable>;
  ttl: Map<string, number | null>;
  contexts: Map<string, ContextStmt>;
  guards: Map<string, GuardStmt[]>;
  autonomous: Map<string, AutonomousStmt[]>;
  /** Every constant the rulebase mentions; queries from the model may use only these (see ask_policy). */
  vocabulary: Set<FactValue>;
  /** Not errors, but worth a look (a write tool without a guard, a bound fact without a ttl). */
  warnings: RulebaseIssue[];
}

/** How long a fact of `pred` established now stays valid, in seconds (null = for the whole conversation). */
export function ttlSeconds(rb: Rulebase, pred: string, source: 'tool' | 'person' | 'seed'): number | null {
  const annotated = rb.ttl.get(pred);
  if (annotated !== undefined) return annotated;
  return source === 'tool' && rb.bindings.has(pred) ? DEFAULT_TOOL_FACT_TTL_SECONDS : null;
}

class Issues {
  readonly list: RulebaseIssue[] = [];
  add(pos: Pos, message: string) {
    this.list.push({ file: pos.file, line: pos.line, column: pos.column, message });
  }
}

function mapTerm(t: Term, contexts: ReadonlySet<string>): Term {
  if (t.kind === 'const' && !t.quoted && typeof t.value === 'string' && contexts.has(t.value)) {
    return { kind: 'ctx', name: t.value, pos: t.pos };
  }
  return t;
}

function mapExpr(e: Expr, contexts: ReadonlySet<string>): Expr {
  if (e.kind === 'arith') return { ...e, left: mapExpr(e.left, contexts), right: mapExpr(e.right, contexts) };
  return mapTerm(e, contexts);
}

/** Rewrites bare symbols that name a declared context variable into context references. */
export function resolveContextRefs(body: Literal[], contexts: ReadonlySet<string>): Literal[] {
  return body.map((l) =>
    l.kind === 'atom'
      ? { ...l, atom: { ...l.atom, args: l.atom.args.map((a) => mapTerm(a, contexts)) } }
      : { ...l, left: mapExpr(l.left, contexts), right: mapExpr(l.right, contexts) },
  );
}

const mapParams = (ps: ToolParam[], contexts: ReadonlySet<string>) =>
  ps.map((p) => ({ ...p, term: mapTerm(p.term, contexts) }));

function exprVars(e: Expr, out: Term[] = []): Term[] {
  if (e.kind === 'arith') {
    exprVars(e.left, out);
    exprVars(e.right, out);
  } else if (e.kind === 'var') {
    out.push(e);
  }
  return out;
}

function collectConsts(e: Expr, out: Set<FactValue>) {
  if (e.kind === 'arith') {
    collectConsts(e.left, out);
    collectConsts(e.right, out);
  } else if (e.kind === 'const') {
    out.add(e.value);
  }
}

/** Placeholders in an askable question: `{Lead}`. */
export function questionPlaceholders(q: string): string[] {
  return [...q.matchAll(/\{([A-Z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1] as string);
}

interface Checker {
  rb: Rulebase;
  issues: Issues;
}

/**
 * Left-to-right safety, mirroring how the solver runs a body: every variable must be bound by a positive
 * literal (or an `X = Expr` assignment) before a negation, a comparison or a builtin input uses it.
 * Returns the variables bound after the body.
 */
function checkBody(c: Checker, body: Literal[], initiallyBound: Iterable<string>): Set<string> {
  const bound = new Set(initiallyBound);
  for (const lit of body) {
    if (lit.kind === 'atom') {
      const { atom } = lit;
      checkAtomUse(c, atom);
      const builtin = BUILTINS[atom.pred];
      atom.args.forEach((arg, i) => {
        if (arg.kind !== 'var') return;
        const isInput = builtin?.inputs.includes(i) === true;
        const mustBeBound = lit.negated || isInput;
        if (arg.name === '_') {
          if (isInput) c.issues.add(arg.pos, `'_' cannot be an input of ${atom.pred}`);
          return;
        }
        if (mustBeBound && !bound.has(arg.name)) {
          c.issues.add(
            arg.pos,
            lit.negated
              ? `unsafe negation: variable ${arg.name} in 'not ${atom.pred}(…)' must be bound by an earlier positive literal`
              : `variable ${arg.name} must be bound before it is passed to ${atom.pred}`,
          );
        }
      });
      if (!lit.negated)
        for (const arg of atom.args) if (arg.kind === 'var' && arg.name !== '_') bound.add(arg.name);
      continue;
    }
    const lv = exprVars(lit.left);
    const rv = exprVars(lit.right);
    for (const v of [...lv, ...rv]) {
      if (v.kind === 'var' && v.name === '_') c.issues.add(v.pos, "'_' cannot be used in a comparison");
    }
    const unbound = (vs: Term[]) =>
      vs.filter((v) => v.kind === 'var' && v.name !== '_' && !bound.has(v.name));
    if (
      lit.op === '=' &&
      lit.left.kind === 'var' &&
      unbound([lit.left]).length === 1 &&
      unbound(rv).length === 0
    ) {
      bound.add(lit.left.name);
      continue;
    }
    if (
      lit.op === '=' &&
      lit.right.kind === 'var' &&
      unbound([lit.right]).length === 1 &&
      unbound(lv).length === 0
    ) {
      bound.add(lit.right.name);
      continue;
    }
    for (const v of unbound([...lv, ...rv])) {
      if (v.kind === 'var') c.issues.add(v.pos, `variable ${v.name} is not bound before this comparison`);
    }
  }
  return bound;
}

function checkAtomUse(c: Checker, atom: Atom) {
  const { rb, issues } = c;
  const known = isBuiltin(atom.pred) || rb.rules.has(atom.pred) || rb.basePreds.has(atom.pred);
  if (!known) {
    issues.add(
      atom.pos,
      `unknown predicate '${atom.pred}' (define it with a rule, or declare it with bind, askable or base)`,
    );
    return;
  }
  const expected = isBuiltin(atom.pred) ? BUILTINS[atom.pred]?.arity : rb.arity.get(atom.pred);
  if (expected !== undefined && expected !== atom.args.length) {
    issues.add(
      atom.pos,
      `${atom.pred} takes ${expected} argument(s) but is used here with ${atom.args.length}`,
    );
  }
}

function noteArity(rb: Rulebase, issues: Issues, atom: Atom) {
  const prev = rb.arity.get(atom.pred);
  if (prev === undefined) rb.arity.set(atom.pred, atom.args.length);
  else if (prev !== atom.args.length) {
    issues.add(
      atom.pos,
      `${atom.pred} is defined elsewhere with ${prev} argument(s), here with ${atom.args.length}`,
    );
  }
}

function headVarNames(c: Checker, atom: Atom, what: string): string[] {
  const seen = new Set<string>();
  return atom.args.map((a) => {
    if (a.kind !== 'var' || a.name === '_') {
      c.issues.add(a.pos, `the arguments of ${what} ${atom.pred} must be named variables`);
      return '';
    }
    if (seen.has(a.name)) c.issues.add(a.pos, `variable ${a.name} appears twice in ${what} ${atom.pred}`);
    seen.add(a.name);
    return a.name;
  });
}

function compileBinding(c: Checker, s: BindStmt): CompiledBinding | undefined {
  const headVars = headVarNames(c, s.head, 'the binding');
  const inputVars = new Set<string>();
  for (const p of s.args) {
    if (p.term.kind === 'var') {
      if (!headVars.includes(p.term.name)) {
        c.issues.add(
          p.term.pos,
          `tool argument ${p.key}: ${p.term.name} must be a variable of ${s.head.pred}`,
        );
      }
      inputVars.add(p.term.name);
    }
  }
  const fields = new Map<number, PathStep[]>();
  for (const f of s.fields) {
    const i = headVars.indexOf(f.variable);
    if (i < 0) {
      c.issues.add(f.pos, `${f.variable} is not a variable of ${s.head.pred}`);
      continue;
    }
    if (fields.has(i)) c.issues.add(f.pos, `${f.variable} is read twice`);
    try {
      fields.set(i, parsePath(f.path));
    } catch (e) {
      c.issues.add(f.pos, e instanceof PolicyQueryError ? e.message : String(e));
    }
  }
  headVars.forEach((v, i) => {
    if (v && !inputVars.has(v) && !fields.has(i)) {
      c.issues.add(
        s.head.args[i]?.pos ?? s.pos,
        `variable ${v} is neither a tool argument nor read from the result`,
      );
    }
  });
  let each: PathStep[] | undefined;
  if (s.each !== undefined) {
    try {
      each = parsePath(s.each);
    } catch (e) {
      c.issues.add(s.pos, e instanceof PolicyQueryError ? e.message : String(e));
    }
  }
  return {
    stmt: s,
    pred: s.head.pred,
    headVars,
    inputPositions: headVars.flatMap((v, i) => (inputVars.has(v) ? [i] : [])),
    ...(each ? { each } : {}),
    fields,
  };
}

/** Tarjan's SCCs over the predicate dependency graph; negation inside a cycle has no stable meaning. */
function checkStratification(c: Checker) {
  const edges = new Map<string, Set<string>>();
  for (const [pred, rules] of c.rb.rules) {
    const out = new Set<string>();
    for (const r of rules)
      for (const l of r.body) if (l.kind === 'atom' && c.rb.rules.has(l.atom.pred)) out.add(l.atom.pred);
    edges.set(pred, out);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const comp = new Map<string, number>();
  const stack: string[] = [];
  let counter = 0;
  let compCount = 0;
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (!comp.has(w)) {
        low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
      }
    }
    if (low.get(v) === index.get(v)) {
      for (;;) {
        const w = stack.pop() as string;
        comp.set(w, compCount);
        if (w === v) break;
      }
      compCount++;
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  for (const [pred, rules] of c.rb.rules) {
    for (const r of rules) {
      for (const l of r.body) {
        if (
          l.kind === 'atom' &&
          l.negated &&
          comp.has(l.atom.pred) &&
          comp.get(l.atom.pred) === comp.get(pred)
        ) {
          c.issues.add(
            l.pos,
            `negation cycle: ${pred} depends on 'not ${l.atom.pred}' which depends on ${pred}`,
          );
        }
      }
    }
  }
}

/**
 * Validates parsed statements into a Rulebase. Throws RulebaseError listing every problem: unknown predicates,
 * unbound head variables, unsafe negation, negation cycles, malformed bindings and askables, and — when the tool
 * registry is given — guards or bindings that name no known tool.
 */
export function compileRulebase(
  statements: Statement[],
  opts: { files?: string[]; tools?: ToolInfo[] } = {},
) {
  const issues = new Issues();
  const rb: Rulebase = {
    files: opts.files ?? [],
    statements,
    rules: new Map(),
    basePreds: new Set(),
    arity: new Map(),
    bindings: new Map(),
    askables: new Map(),
    ttl: new Map(),
    contexts: new Map(),
    guards: new Map(),
    autonomous: new Map(),
    vocabulary: new Set(),
    warnings: [],
  };
  const c: Checker = { rb, issues };

  for (const s of statements) {
    if (s.kind !== 'context') continue;
    if (rb.contexts.has(s.name)) issues.add(s.pos, `context ${s.name} is declared twice`);
    if (KEYWORDS.has(s.name)) issues.add(s.pos, `'${s.name}' is a keyword`);
    rb.contexts.set(s.name, s);
  }
  const ctxNames = new Set(rb.contexts.keys());
  const stmts: Statement[] = statements.map((s) => {
    switch (s.kind) {
      case 'rule':
        return { ...s, body: resolveContextRefs(s.body, ctxNames) };
      case 'guard':
      case 'autonomous':
        return { ...s, params: mapParams(s.params, ctxNames), body: resolveContextRefs(s.body, ctxNames) };
      case 'bind':
        return { ...s, args: mapParams(s.args, ctxNames) };
      case 'context':
        return s.where ? { ...s, where: resolveContextRefs(s.where, ctxNames) } : s;
      default:
        return s;
    }
  });
  rb.statements = stmts;
  for (const s of stmts) if (s.kind === 'context') rb.contexts.set(s.name, s);

  // Definitions first, so uses anywhere in any file can be checked.
  for (const s of stmts) {
    if (s.kind === 'rule') {
      if (isBuiltin(s.head.pred))
        issues.add(s.head.pos, `${s.head.pred} is a builtin and cannot be redefined`);
      for (const a of s.head.args) {
        if (a.kind === 'const' && !a.quoted && typeof a.value === 'string' && ctxNames.has(a.value)) {
          issues.add(a.pos, `context variable ${a.value} cannot appear in a rule head`);
        }
      }
      noteArity(rb, issues, s.head);
      const list = rb.rules.get(s.head.pred) ?? [];
      list.push(s);
      rb.rules.set(s.head.pred, list);
    } else if (s.kind === 'bind' || s.kind === 'askable' || s.kind === 'base') {
      if (isBuiltin(s.head.pred))
        issues.add(s.head.pos, `${s.head.pred} is a builtin and cannot be redeclared`);
      noteArity(rb, issues, s.head);
      rb.basePreds.add(s.head.pred);
    }
  }
  for (const pred of rb.basePreds) {
    const rules = rb.rules.get(pred);
    if (rules?.[0]) {
      issues.add(
        rules[0].pos,
        `${pred} is a base predicate (bind/askable/base) and cannot also be derived by rules; use a new name`,
      );
    }
  }

  const tools = opts.tools ? new Map(opts.tools.map((t) => [t.name, t])) : undefined;
  for (const s of stmts) {
    switch (s.kind) {
      case 'rule': {
        const bound = checkBody(c, s.body, []);
        for (const a of s.head.args) {
          if (a.kind === 'var' && !bound.has(a.name)) {
            issues.add(
              a.pos,
              a.name === '_'
                ? `'_' cannot appear in the head of ${s.head.pred}`
                : `head variable ${a.name} of ${s.head.pred} is not bound by the body (unbound head variable)`,
            );
          }
        }
        break;
      }
      case 'guard':
      case 'autonomous': {
        const keys = new Set<string>();
        for (const p of s.params) {
          if (keys.has(p.key)) issues.add(p.term.pos, `argument ${p.key} appears twice`);
          keys.add(p.key);
        }
        checkBody(
          c,
          s.body,
          s.params.flatMap((p) => (p.term.kind === 'var' && p.term.name !== '_' ? [p.term.name] : [])),
        );
        const tool = tools?.get(s.tool);
        if (tools && !tool) {
          issues.add(
            s.pos,
            `${s.kind === 'guard' ? 'guard' : 'autonomous rule'} names unknown tool '${s.tool}'`,
          );
        } else if (s.kind === 'autonomous' && tool && tool.kind !== 'write') {
          issues.add(s.pos, `'${s.tool}' is a ${tool.kind} tool; only writes need approval to skip`);
        }
        const map = s.kind === 'guard' ? rb.guards : rb.autonomous;
        const list = (map.get(s.tool) ?? []) as Array<typeof s>;
        list.push(s);
        (map as Map<string, Array<typeof s>>).set(s.tool, list);
        break;
      }
      case 'bind': {
        if (rb.bindings.has(s.head.pred)) issues.add(s.pos, `${s.head.pred} already has a binding`);
        const tool = tools?.get(s.tool);
        if (tools && !tool) issues.add(s.pos, `binding names unknown tool '${s.tool}'`);
        else if (tool && tool.kind !== 'read') {
          issues.add(
            s.pos,
            `binding calls '${s.tool}', a ${tool.kind} tool; the solver may only call read tools`,
          );
        }
        const b = compileBinding(c, s);
        if (b) rb.bindings.set(s.head.pred, b);
        break;
      }
      case 'askable': {
        if (rb.askables.has(s.head.pred)) issues.add(s.pos, `${s.head.pred} is already askable`);
        const vars = headVarNames(c, s.head, 'the askable');
        const keyPositions: number[] = [];
        for (const ph of questionPlaceholders(s.question)) {
          const i = vars.indexOf(ph);
          if (i < 0)
            issues.add(s.pos, `the question mentions {${ph}}, which is not a variable of ${s.head.pred}`);
          else if (!keyPositions.includes(i)) keyPositions.push(i);
        }
        rb.askables.set(s.head.pred, { stmt: s, pred: s.head.pred, keyPositions: keyPositions.sort() });
        break;
      }
      case 'base':
        for (const a of s.head.args) {
          if (a.kind !== 'var')
            issues.add(a.pos, `declare ${s.head.pred} with variables only, e.g. base p(X, Y).`);
        }
        break;
      case 'ttl':
        if (!rb.basePreds.has(s.pred)) {
          issues.add(
            s.pos,
            `ttl applies to facts, but ${s.pred} is not a base predicate (bind, askable or base)`,
          );
        }
        if (rb.ttl.has(s.pred)) issues.add(s.pos, `${s.pred} has two ttl annotations`);
        rb.ttl.set(s.pred, s.seconds);
        break;
      case 'context':
        if (s.where) checkBody(c, s.where, []);
        break;
    }
  }

  checkStratification(c);

  for (const s of stmts) {
    const bodies: Literal[][] =
      s.kind === 'rule' || s.kind === 'guard' || s.kind === 'autonomous'
        ? [s.body]
        : s.kind === 'context' && s.where
          ? [s.where]
          : [];
    if (s.kind === 'rule') for (const a of s.head.args) if (a.kind === 'const') rb.vocabulary.add(a.value);
    for (const body of bodies) {
      for (const l of body) {
        if (l.kind === 'atom') {
          for (const a of l.atom.args) if (a.kind === 'const') rb.vocabulary.add(a.value);
        } else {
          collectConsts(l.left, rb.vocabulary);
          collectConsts(l.right, rb.vocabulary);
        }
      }
    }
  }

  if (tools) {
    for (const t of tools.values()) {
      if (t.kind === 'write' && !rb.guards.has(t.name)) {
        rb.warnings.push({
          file: '(registry)',
          line: 1,
          column: 1,
          message: `write tool ${t.name} has no guard`,
        });
      }
    }
  }
  for (const [pred, b] of rb.bindings) {
    if (!rb.ttl.has(pred)) {
      rb.warnings.push({
        ...b.stmt.pos,
        message: `${pred} has no ttl; tool results are kept ${DEFAULT_TOOL_FACT_TTL_SECONDS}s`,
      });
    }
  }

  if (issues.list.length > 0) {
    issues.list.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column);
    throw new RulebaseError(issues.list);
  }
  return rb;
}

/** Validates a query or a guard-like body against a compiled rulebase (same safety rules as a rule body). */
export function checkQueryBody(rb: Rulebase, body: Literal[]): Set<string> {
  const c: Checker = { rb, issues: new Issues() };
  const bound = checkBody(c, body, []);
  if (c.issues.list.length > 0) throw new RulebaseError(c.issues.list);
  return bound;
}

/** Write tools of the registry that no guard covers (the runtime's registry test enumerates these). */
export function writesWithoutGuard(rb: Rulebase, tools: ToolInfo[]): string[] {
  return tools.filter((t) => t.kind === 'write' && !rb.guards.has(t.name)).map((t) => t.name);
}
