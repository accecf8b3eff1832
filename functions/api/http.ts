import type { Context } from 'hono';
import type * as z from 'zod';
import type { SessionUser } from '../../shared/src/contracts/api';
import { describeZodIssues, UnauthorizedError, ValidationError } from '../../shared/src/errors';

/**
 * Request/response edges for the route handlers: every body and query is parsed with its zod contract
 * (a 400 names the field), and every JSON response is checked against its contract before it leaves, so
 * the PWA never receives a shape it was not promised.
 */
export async function readJson<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S>> {
  const text = await c.req.text();
  let raw: unknown = {};
  if (text.trim()) {
    try {
      raw = JSON.parse(text);
    } catch {
      throw new ValidationError('The request body is not valid JSON.');
    }
  }
  return parseWith(schema, raw);
}

export function readQuery<S extends z.ZodType>(c: Context, schema: S): z.infer<S> {
  return parseWith(schema, c.req.query());
}

export function parseWith<S extends z.ZodType>(schema: S, raw: unknown): z.infer<S> {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new ValidationError(describeZodIssues(parsed.error.issues));
  return parsed.data;
}

export function reply<S extends z.ZodType>(c: Context, schema: S, body: z.input<S>, status: 200 | 201 = 200) {
  return c.json(schema.parse(body) as object, status);
}

/** The caller, set by the session guard; its absence here is a wiring bug, answered as a 401 not a leak. */
export function currentUser(c: Context): SessionUser {
  const user = c.get('user') as SessionUser | undefined;
  if (!user) throw new UnauthorizedError();
  return user;
}

/** The caller as the use cases record a person: id, email and, when the session has one, the name. */
export function actorOf(c: Context): { id: string; email: string; name?: string } {
  const user = currentUser(c);
  return { id: user.id, email: user.email, ...(user.name ? { name: user.name } : {}) };
}
