import { z } from 'zod';
import { timeZone } from './time-zone';

/**
 * Personal and team preferences (follow #20): edited by people in the PWA settings, stored as facts in one
 * team partition (use-cases/preferences.ts), read by the planners and the digest. The agent's tools cannot
 * write them (no tool writes that partition; the API route is the only writer).
 */
export const personalPreferences = z.object({
  /** The person's own zone (the team's when absent): their digest hour and times they say in chat. */
  timezone: timeZone.optional(),
  /** How drafts the person approves are signed ("– Sam, Oak Properties"). */
  signature: z.string().trim().min(1).max(200).optional(),
  /** Length of a calendar event when none is said, minutes. */
  eventMinutes: z.number().int().min(5).max(480).optional(),
  /** Local hour (0–23) of the daily digest push; absent = no digest. */
  digestHour: z.number().int().min(0).max(23).optional(),
});
export type PersonalPreferences = z.infer<typeof personalPreferences>;

/** Saving: a field set to null is cleared; an absent field is left as it is. */
export const savePersonalPreferencesRequest = z
  .object({
    timezone: timeZone.nullable().optional(),
    signature: z.string().trim().min(1).max(200).nullable().optional(),
    eventMinutes: z.number().int().min(5).max(480).nullable().optional(),
    digestHour: z.number().int().min(0).max(23).nullable().optional(),
    /** The properties this person handles (replaces their list; [] = none): conversations there are theirs. */
    properties: z.array(z.string().trim().min(1).max(120)).max(50).optional(),
  })
  .strict();
export type SavePersonalPreferences = z.infer<typeof savePersonalPreferencesRequest>;

export const propertyAssignment = z.object({
  /** The property as the team names it ("12 Oak St"); matched case-insensitively. */
  property: z.string().trim().min(1).max(120),
  /** The team member who handles it (user id), and their name for display. */
  userId: z.string().min(1).max(200),
  name: z.string().max(120).optional(),
  /** In a response: the assignment is the caller's own. */
  mine: z.boolean().optional(),
});
export type PropertyAssignment = z.infer<typeof propertyAssignment>;

export const teamPreferences = z.object({
  assignments: z.array(propertyAssignment).max(200),
});
export type TeamPreferences = z.infer<typeof teamPreferences>;

export const preferencesResponse = z.object({
  personal: personalPreferences,
  team: teamPreferences,
  /** The team's zone, which applies when the person has none. */
  teamTimezone: z.string(),
  /** When the next digest is due for this person (ISO), if one is scheduled. */
  nextDigestAt: z.string().optional(),
  /** On a save: how many existing conversations about the properties they handle just became theirs. */
  assignedNow: z.number().int().min(0).optional(),
});
export type PreferencesResponse = z.infer<typeof preferencesResponse>;
