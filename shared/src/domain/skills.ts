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
