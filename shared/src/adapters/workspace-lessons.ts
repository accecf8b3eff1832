import {
  isActive,
  LESSONS_DIR,
  LESSONS_MAX,
  type Lesson,
  lessonPath,
  observe,
  parseLesson,
  renderLesson,
  withLessonIndex,
} from '../domain/lessons';
import type { LessonBook } from '../ports/lessons';
import type { Log } from '../ports/logger';
import type { Workspace } from '../ports/workspace';

const CACHE_MS = 60_000;
const MEMORY = 'MEMORY.md';

async function readOr(ws: Workspace, path: string): Promise<string | undefined> {
  return ws.readFile(path).catch(() => undefined);
}

async function all(ws: Workspace): Promise<Array<{ path: string; lesson: Lesson }>> {
  const files = await ws.listFiles(LESSONS_DIR).catch(() => []);
  const out: Array<{ path: string; lesson: Lesson }> = [];
  for (const f of files) {
    const lesson = parseLesson((await readOr(ws, f.path)) ?? '');
    if (lesson) out.push({ path: f.path, lesson });
  }
  return out;
}

/**
 * Lessons as files in the memory workspace: `lessons/<tool>-<aspect>-<hash>.md` and the index section in
 * MEMORY.md, committed by system code (never the agent's file tools: `lessons/` is protected). Capped at
 * LESSONS_MAX files, the least-seen removed first. A lesson an admin deleted in the PWA is gone for the
 * planners within a minute.
 */
export function workspaceLessons(ws: Workspace, log: Log, clock: () => Date): LessonBook {
  let cache: { at: number; lessons: Lesson[] } | undefined;
  return {
    async learn(o) {
      await ws.sync().catch((e) => log.warn('lessons.sync_failed', { error: String(e) }));
      const path = lessonPath(o);
      const existing = parseLesson((await readOr(ws, path)) ?? '');
      if (existing?.examples.some((e) => e.includes(o.ref))) return existing;
      const at = clock().toISOString();
      const lesson = observe(
        existing,
        { tool: o.tool, aspect: o.aspect, text: o.text, ...(o.from ? { from: o.from } : {}), updatedAt: at },
        `${at.slice(0, 10)} ${o.ref}: ${o.example}`.slice(0, 400),
      );
      await ws.writeFile(path, renderLesson(lesson));
      const lessons = await all(ws);
      for (const extra of [...lessons]
        .sort((a, b) => a.lesson.seen - b.lesson.seen)
        .slice(0, Math.max(0, lessons.length - LESSONS_MAX)))
        await ws.deleteFile(extra.path);
      const kept = await all(ws);
      await ws.writeFile(MEMORY, withLessonIndex((await readOr(ws, MEMORY)) ?? '# Memory\n', kept));
      await ws.commitAndPush({
        conversationId: o.conversationId,
        summary: `lesson (${o.aspect}) from ${o.ref}`,
      });
      cache = undefined;
      log.info('lessons.learned', { path, seen: lesson.seen, active: isActive(lesson) });
      return lesson;
    },
    async active() {
      const now = clock().getTime();
      if (cache && now - cache.at < CACHE_MS) return cache.lessons;
      await ws.sync().catch(() => undefined);
      const lessons = (await all(ws)).map((x) => x.lesson).filter(isActive);
      cache = { at: now, lessons };
      return lessons;
    },
  };
}
