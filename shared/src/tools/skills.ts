import { z } from 'zod';
import { parseSkill, SKILL_NAME, type Skill, skillPath } from '../domain/skills';
import { NotFoundError } from '../errors';
import type { Workspace } from '../ports/workspace';
import { lazyInput, type Tool } from './tool';

export interface SkillToolDeps {
  workspace: Pick<Workspace, 'readFile' | 'listFiles'>;
}

/** Every skill in the workspace (front matter only is needed for the list; bodies come with it cheaply). */
export async function listSkills(workspace: SkillToolDeps['workspace']): Promise<Skill[]> {
  const files = await workspace.listFiles('skills').catch(() => []);
  const out: Skill[] = [];
  for (const f of files.filter((x) => /^skills\/[^/]+\/SKILL\.md$/i.test(x.path))) {
    const text = await workspace.readFile(f.path).catch(() => undefined);
    const skill = text === undefined ? undefined : parseSkill(f.path, text);
    if (skill) out.push(skill);
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

const loadSkillInput = lazyInput(() =>
  z
    .object({
      name: z.string().regex(SKILL_NAME, 'a skill name: lower-case letters, digits and dashes').optional(),
      /** Rules mode: the intent a skill says it refines (`intent:` in its front matter). */
      intent: z.string().min(1).max(64).optional(),
    })
    .refine((i) => i.name || i.intent, 'give the skill name (or the intent it refines)'),
);

/**
 * Loads one skill's full text when the agent decides it applies (the list of names and one-liners is in the
 * instructions every turn). A read: no card. An unknown name answers with the names there are.
 */
export const loadSkill: Tool<typeof loadSkillInput, SkillToolDeps> = {
  name: 'load_skill',
  group: 'memory',
  kind: 'read',
  description:
    "Load one of the team's skills (a written procedure, listed under Skills in your instructions) by name, and follow it.",
  input: loadSkillInput,
  async run({ workspace }, input) {
    const skills = await listSkills(workspace);
    const found = input.name
      ? skills.find((s) => s.name === input.name || s.path === skillPath(input.name as string))
      : skills.find((s) => s.intent === input.intent);
    if (!found) {
      if (input.intent && !input.name) return { found: false, intent: input.intent };
      throw new NotFoundError(
        `No skill “${input.name}”. Skills: ${skills.map((s) => s.name).join(', ') || 'none yet'}.`,
      );
    }
    return {
      found: true,
      name: found.name,
      description: found.description,
      ...(found.intent ? { intent: found.intent } : {}),
      text: found.body,
    };
  },
  summarize: (i) => `Load skill ${i.name ?? `for ${i.intent}`}`,
};
