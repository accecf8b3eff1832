import type {
  PersonalPreferences,
  PropertyAssignment,
  SavePersonalPreferences,
  TeamPreferences,
} from '../contracts/preferences';
import type { AuditLog } from '../ports/audit-log';
import type { FactStore, FactValue, StoredFact } from '../ports/fact-store';

/**
 * Preferences as facts (follow #20). They live in ONE fact partition for the whole team (`team-preferences`),
 * so a planner or the digest reads a person's and the team's preferences with one Query, and the policy can
 * be given them as ordinary facts. A person's value is `preference(user:<id>, <key>, <value>)`; a property
 * assignment is `assigned(<property lower-case>, <user id>, <property>, <name>)`. Only the API writes here:
 * no agent tool names this partition, so the agent cannot change who handles what or how people sign.
 */
export const PREFERENCES_PARTITION = 'team-preferences';

const PERSONAL_KEYS = ['timezone', 'signature', 'eventMinutes', 'digestHour'] as const;
type PersonalKey = (typeof PERSONAL_KEYS)[number];

export interface PreferencesDeps {
  facts: FactStore;
  clock: () => Date;
}

export interface Preferences {
  personal: PersonalPreferences;
  team: TeamPreferences;
}

const subjectOf = (userId: string) => `user:${userId}`;

/** Everything in one read: the person's own preferences and the team's assignments. */
export async function readPreferences(deps: PreferencesDeps, userId?: string): Promise<Preferences> {
  const all = await deps.facts.list(PREFERENCES_PARTITION, { now: deps.clock() });
  return {
    personal: userId ? personalFrom(all, userId) : {},
    team: { assignments: assignmentsFrom(all) },
  };
}

/** Every person's preferences (the digest's and the planners' view), keyed by user id. */
export function personalFrom(all: StoredFact[], userId: string): PersonalPreferences {
  const out: Record<string, FactValue> = {};
  for (const f of all) {
    if (f.predicate !== 'preference' || f.args[0] !== subjectOf(userId)) continue;
    const [, key, value] = f.args;
    if (typeof key === 'string' && value !== undefined) out[key] = value;
  }
  return {
    ...(typeof out.timezone === 'string' ? { timezone: out.timezone } : {}),
    ...(typeof out.signature === 'string' ? { signature: out.signature } : {}),
    ...(typeof out.eventMinutes === 'number' ? { eventMinutes: out.eventMinutes } : {}),
    ...(typeof out.digestHour === 'number' ? { digestHour: out.digestHour } : {}),
  };
}

export function assignmentsFrom(all: StoredFact[]): PropertyAssignment[] {
  return all
    .filter((f) => f.predicate === 'assigned')
    .map((f) => {
      const [, userId, property, name] = f.args;
      return {
        property: String(property),
        userId: String(userId),
        ...(typeof name === 'string' && name ? { name } : {}),
      };
    })
    .sort((a, b) => a.property.localeCompare(b.property));
}

/** Who handles a property (case-insensitive exact name, then the first assignment the text mentions). */
export function assigneeFor(assignments: PropertyAssignment[], property: string | undefined) {
  if (!property) return undefined;
  const p = property.trim().toLowerCase();
  return (
    assignments.find((a) => a.property.toLowerCase() === p) ??
    assignments.find((a) => p.includes(a.property.toLowerCase()))
  );
}

/**
 * Saves a person's preferences: each given key replaces its old value (a fact per value, so the old one is
 * deleted first), `null` clears it; `properties` replaces the person's own property assignments (each person
 * says which properties they handle, so no one needs a list of the team's user ids). Returns the preferences before and after (the digest is rescheduled from
 * the difference).
 */
export async function savePersonalPreferences(
  deps: PreferencesDeps & { audit?: AuditLog },
  input: { userId: string; name?: string; patch: SavePersonalPreferences; by: string },
): Promise<{ before: PersonalPreferences; after: PersonalPreferences }> {
  const all = await deps.facts.list(PREFERENCES_PARTITION, { now: deps.clock() });
  const before = personalFrom(all, input.userId);
  const subject = subjectOf(input.userId);
  const put: StoredFact[] = [];
  for (const key of PERSONAL_KEYS) {
    const value = input.patch[key as PersonalKey];
    if (value === undefined) continue;
    for (const old of all) {
      if (old.predicate === 'preference' && old.args[0] === subject && old.args[1] === key)
        await deps.facts.delete(PREFERENCES_PARTITION, 'preference', old.args);
    }
    if (value !== null) put.push(fact('preference', [subject, key, value], input.by, deps.clock()));
  }
  if (input.patch.properties) {
    for (const old of all) {
      if (old.predicate === 'assigned' && old.args[1] === input.userId)
        await deps.facts.delete(PREFERENCES_PARTITION, 'assigned', old.args);
    }
    for (const property of new Set(input.patch.properties)) {
      const args = [property.toLowerCase(), input.userId, property, input.name ?? ''];
      put.push(fact('assigned', args, input.by, deps.clock()));
    }
  }
  if (put.length) await deps.facts.put(PREFERENCES_PARTITION, put);
  const after = personalFrom(
    await deps.facts.list(PREFERENCES_PARTITION, { now: deps.clock() }),
    input.userId,
  );
  await deps.audit?.append({
    conversationId: PREFERENCES_PARTITION,
    type: 'preferences.saved',
    actor: input.by,
    data: { userId: input.userId, keys: Object.keys(input.patch) },
  });
  return { before, after };
}

function fact(predicate: string, args: FactValue[], by: string, now: Date): StoredFact {
  return {
    predicate,
    args,
    establishedAt: Math.floor(now.getTime() / 1000),
    provenance: { kind: 'person', detail: `set in settings by ${by}` },
  };
}

/** Per container, at most 60 s old (DESIGN §2: a turn adds no request that is not its own partition or cached). */
const CACHE_MS = 60_000;
const teamCache = new WeakMap<FactStore, { at: number; all: Promise<StoredFact[]>; last?: StoredFact[] }>();

/**
 * The team partition as the worker's readers see it — the planners' preferences, the signature, property
 * assignment: ONE Query per container per 60 s, shared by all of them (a turn that read a person's signature
 * has the assignments too). A failed read is not kept.
 */
export function teamPreferenceFacts(facts: FactStore, now: Date): Promise<StoredFact[]> {
  const hit = teamCache.get(facts);
  if (hit && now.getTime() - hit.at < CACHE_MS) return hit.all;
  const entry: { at: number; all: Promise<StoredFact[]>; last?: StoredFact[] } = {
    at: now.getTime(),
    all: facts.list(PREFERENCES_PARTITION, { now }),
    ...(hit?.last ? { last: hit.last } : {}),
  };
  entry.all.then(
    (all) => {
      entry.last = all;
    },
    () => {
      if (teamCache.get(facts) === entry) teamCache.delete(facts);
    },
  );
  teamCache.set(facts, entry);
  return entry.all;
}

/**
 * The last team partition this container read, however old (never a request): only a hint of which words
 * may name a property, so a turn knows whether spending the fresh read is worth it. Undefined before the
 * container's first read.
 */
export function lastTeamPreferenceFacts(facts: FactStore): StoredFact[] | undefined {
  return teamCache.get(facts)?.last;
}

/** A person's preferences as the planners read them, from the shared cached read of the team partition. */
export function cachedPersonalPreferences(deps: PreferencesDeps) {
  return async (userId: string): Promise<PersonalPreferences> =>
    personalFrom(await teamPreferenceFacts(deps.facts, deps.clock()), userId);
}
