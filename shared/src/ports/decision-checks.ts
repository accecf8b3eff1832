/** A card's arguments against its tool's own schema, as checked when a person decides (validate-decision). */
export type ArgsCheck = { ok: true; args: Record<string, unknown> } | { ok: false; reason: string };
/** The policy's preconditions for the whole card at the moment of the decision. */
export type DecisionCheck = { ok: true } | { ok: false; reason: string; missing?: string[] };
