import type { FactValue } from './facts';

/** Where a piece of rulebase text came from, for error messages and "why" lines. */
export interface Pos {
  file: string;
  line: number;
  column: number;
}

export type Term =
  | { kind: 'var'; name: string; pos: Pos }
  /** `quoted` marks a "string" as written; bare identifiers are symbols of the rulebase's vocabulary. */
  | { kind: 'const'; value: FactValue; quoted: boolean; pos: Pos }
  /** A declared context variable (`lead_of_interest`), resolved to its current binding when solved. */
  | { kind: 'ctx'; name: string; pos: Pos };

export type ArithOp = '+' | '-' | '*' | '/';
export type Expr = Term | { kind: 'arith'; op: ArithOp; left: Expr; right: Expr; pos: Pos };

export type CmpOp = '=' | '!=' | '<' | '<=' | '>' | '>=';

export interface Atom {
  pred: string;
  args: Term[];
  pos: Pos;
}

export type Literal =
  | { kind: 'atom'; atom: Atom; negated: boolean; pos: Pos }
  | { kind: 'cmp'; op: CmpOp; left: Expr; right: Expr; pos: Pos };

/** `key: Term` — how a tool call's JSON arguments meet the rulebase (guards, bindings). */
export interface ToolParam {
  key: string;
  term: Term;
}

export interface RuleStmt {
  kind: 'rule';
  head: Atom;
  body: Literal[];
  pos: Pos;
}

export interface GuardStmt {
  kind: 'guard';
  tool: string;
  params: ToolParam[];
  body: Literal[];
  pos: Pos;
  /** The statement as written, for "blocked by …" messages. */
  text: string;
}

export interface AutonomousStmt {
  kind: 'autonomous';
  tool: string;
  params: ToolParam[];
  body: Literal[];
  pos: Pos;
  text: string;
}

export interface FieldMap {
  variable: string;
  path: string;
  pos: Pos;
}

export interface BindStmt {
  kind: 'bind';
  head: Atom;
  tool: string;
  args: ToolParam[];
  /** Path to the array of items in the tool's JSON result; absent = the result itself is the one item. */
  each?: string;
  fields: FieldMap[];
  pos: Pos;
}

export interface AskableStmt {
  kind: 'askable';
  head: Atom;
  question: string;
  pos: Pos;
}

export interface BaseStmt {
  kind: 'base';
  head: Atom;
  pos: Pos;
}

export interface TtlStmt {
  kind: 'ttl';
  pred: string;
  /** null = never expires. */
  seconds: number | null;
  pos: Pos;
}

export interface ContextStmt {
  kind: 'context';
  name: string;
  fixed: boolean;
  description?: string;
  /** Must hold for a value before `set_focus` accepts it; the context's own name stands for the candidate. */
  where?: Literal[];
  pos: Pos;
}

export type Statement =
  | RuleStmt
  | GuardStmt
  | AutonomousStmt
  | BindStmt
  | AskableStmt
  | BaseStmt
  | TtlStmt
  | ContextStmt;
