/**
 * Skills (follow #20): `skills/<name>/SKILL.md` in the memory workspace, written by the team (a protected
 * path: the agent reads them and never writes them). Front matter gives the name, one line saying when it
 * applies, and optionally the rules-mode intent it refines; the body is the procedure.
 */
export interface Skill {
  name: string;
  description: string;
  /** The rules-mode intent or trigger the skill refines (`inbound_sms`, `schedule_followup`, …), if any. */
  intent?: string;
  path: string;
  body: string;
}

export const SKILL_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;
export const skillPath = (name: string) => `skills/${name}/SKILL.md`;

/** A SKILL.md read leniently: missing front matter falls back to the folder name and the first heading. */
export function parseSkill(path: string, text: string): Skill | undefined {
  const folder = path.match(/^skills\/([^/]+)\/SKILL\.md$/i)?.[1];
  if (!folder) return undefined;
  const fm = text.match(/^---\n([\s\S]*?)\n---\n?/);
  const fields: Record<string, string> = {};
  for (const line of (fm?.[1] ?? '').split('\n')) {
    const m = line.match(/^([a-z_]+):\s*(.*)$/i);
    if (m?.[1] && m[2] !== undefined) fields[m[1].toLowerCase()] = m[2].trim().replace(/^["']|["']$/g, '');
  }
  const body = fm ? text.slice(fm[0].length) : text;
  const heading = body.match(/^#\s+(.+)$/m)?.[1]?.trim();
  return {
    name: fields.name || folder,
    description: (fields.description || heading || folder).slice(0, 200),
    ...(fields.intent ? { intent: fields.intent } : {}),
    path,
    body: body.trim(),
  };
}

/** The list the model sees every turn: name and one line each; the body is loaded only when it applies. */
export function skillsSection(skills: Skill[]): string {
  if (!skills.length) return '';
  const lines = skills.map((s) => `- ${s.name}: ${s.description}`);
  return `## Skills (the team's procedures: call load_skill with the name when one applies, then follow it)\n${lines.join('\n')}`;
}

/**
 * What rules mode can follow in a skill (follow #20): the lines of its `## Rules mode` section —
 * - `- add: <sentence>`: added to every reply the rules planner drafts for the intent;
 * - `- add when <class>[, <class>]: <sentence>`: only when the classifier read the message as that class;
 * - `- no reply when <class>[, <class>]`: no draft for that class (the run ends with no action).
 * Everything else in a skill is for the model; rules mode cannot know what prose means, so it follows only
 * these lines, and says so on the card.
 */
export interface RulesModeSkill {
  name: string;
  add: Array<{ text: string; when?: string[] }>;
  noReplyWhen: string[];
}

const classes = (s: string) =>
  s
    .split(/[,\s]+(?:or\s+)?/)
    .map((c) => c.trim().toLowerCase())
    .filter(Boolean);

export function rulesModeSkill(skill: Pick<Skill, 'name' | 'body'>): RulesModeSkill {
  const out: RulesModeSkill = { name: skill.name, add: [], noReplyWhen: [] };
  const section = skill.body.match(/^##\s+rules mode\s*$([\s\S]*?)(?=^#{1,2}\s|(?![\s\S]))/im)?.[1] ?? '';
  for (const raw of section.split('\n')) {
    const line = raw.replace(/^\s*[-*]\s*/, '').trim();
    const noReply = line.match(/^no reply when\s+(.+?)\.?$/i);
    if (noReply?.[1]) out.noReplyWhen.push(...classes(noReply[1]));
    const add = line.match(/^add(?:\s+when\s+([^:]+))?:\s*(.+)$/i);
    if (add?.[2]) out.add.push({ text: add[2].trim(), ...(add[1] ? { when: classes(add[1]) } : {}) });
  }
  return out;
}

/** The sentences a rules-mode skill adds to a reply for this class (none when it has no matching line). */
export function skillAdditions(skill: RulesModeSkill, triageClass: string | undefined): string[] {
  return skill.add
    .filter((a) => !a.when || (triageClass !== undefined && a.when.includes(triageClass)))
    .map((a) => a.text);
}
