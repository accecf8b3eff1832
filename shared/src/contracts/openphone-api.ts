import { z } from 'zod';

/**
 * OpenPhone (Quo) REST wire shapes: the requests our client sends and the responses it reads (the webhook
 * deliveries are in ./openphone.ts, in zod/mini because the webhook bundle must stay small).
 *
 * Built from Quo's published OpenAPI document (openphone-public-api-v1-prod.json, as rendered at
 * quo.com/docs/mdx/api-reference/*) and the webhook guide (quo.com/docs/mdx/guides/webhooks). Response schemas
 * are deliberately tolerant: unknown fields are stripped, fields the docs mark nullable or that older payloads
 * omit are optional, and enums the vendor may extend (message/call status) are plain strings, so a vendor
 * addition does not turn into an outage. What we could not confirm is said where it matters.
 */

const idString = z.string().min(1).max(200);
const timestamp = z.string().min(1);
const nullableString = z.string().nullable().optional();

// ---------------------------------------------------------------- REST API responses

/** Every success body is wrapped in `{ data }`. */
export const openPhoneData = <T extends z.ZodType>(item: T) => z.object({ data: item });

/**
 * List bodies add `totalItems` (which the docs warn is inaccurate) and `nextPageToken` (null on the last
 * page). Phone numbers have no pagination fields at all, hence optional.
 */
export const openPhoneList = <T extends z.ZodType>(item: T) =>
  z.object({
    data: z.array(item),
    totalItems: z.number().int().optional(),
    nextPageToken: z.string().nullable().optional(),
  });

/** The error body every endpoint documents: `{ message, code, status, docs, title, trace?, errors?, description? }`. */
export const openPhoneErrorBody = z.object({
  message: z.string().optional(),
  code: z.union([z.string(), z.number()]).optional(),
  status: z.number().optional(),
  title: z.string().optional(),
  description: z.string().optional(),
  trace: z.string().optional(),
  errors: z.array(z.object({ path: z.string().optional(), message: z.string().optional() })).optional(),
});
export type OpenPhoneErrorBody = z.output<typeof openPhoneErrorBody>;

export const openPhoneUser = z.object({
  id: idString,
  email: z.string().optional(),
  firstName: nullableString,
  lastName: nullableString,
  role: z.string().optional(),
});

/** GET /v1/phone-numbers item. */
export const openPhonePhoneNumber = z.object({
  id: idString,
  number: z.string().min(1),
  name: z.string().nullable().optional(),
  formattedNumber: nullableString,
  groupId: nullableString,
  users: z.array(openPhoneUser).default([]),
  createdAt: timestamp.optional(),
  updatedAt: timestamp.optional(),
});
export type OpenPhonePhoneNumber = z.output<typeof openPhonePhoneNumber>;

const contactField = z.object({
  id: z.string().optional(),
  name: z.string().nullable().optional(),
  value: z.string().nullable(),
});

/** A contact as returned by GET/POST/PATCH /v1/contacts[/id]. */
export const openPhoneContact = z.object({
  id: idString,
  externalId: nullableString,
  source: nullableString,
  sourceUrl: nullableString,
  defaultFields: z.object({
    firstName: nullableString,
    lastName: nullableString,
    company: nullableString,
    role: nullableString,
    emails: z.array(contactField).nullable().default([]),
    phoneNumbers: z.array(contactField).nullable().default([]),
  }),
  customFields: z.array(z.unknown()).nullable().optional(),
  createdAt: timestamp.optional(),
  updatedAt: timestamp.optional(),
  createdByUserId: nullableString,
});
export type OpenPhoneContact = z.output<typeof openPhoneContact>;

/**
 * A message from POST /v1/messages (202), GET /v1/messages and GET /v1/messages/{id}. The docs type `userId`
 * as a string yet describe it as "null for incoming messages", so it is nullable here.
 */
export const openPhoneMessage = z.object({
  id: idString,
  to: z.array(z.string()),
  from: z.string(),
  text: z
    .string()
    .nullable()
    .transform((t) => t ?? ''),
  phoneNumberId: z.string().nullable().optional(),
  direction: z.enum(['incoming', 'outgoing']),
  userId: nullableString,
  status: z.string(),
  createdAt: timestamp,
  updatedAt: timestamp.nullable().optional(),
});
export type OpenPhoneMessage = z.output<typeof openPhoneMessage>;

/** A call from GET /v1/calls and GET /v1/calls/{id}. */
export const openPhoneCall = z.object({
  id: idString,
  phoneNumberId: z.string(),
  userId: nullableString,
  direction: z.enum(['incoming', 'outgoing']),
  status: z.string(),
  participants: z.array(z.string()),
  duration: z.number().nonnegative(),
  createdAt: timestamp,
  answeredAt: nullableString,
  answeredBy: nullableString,
  initiatedBy: nullableString,
  completedAt: nullableString,
  updatedAt: nullableString,
  callRoute: nullableString,
  aiHandled: nullableString,
  forwardedFrom: nullableString,
  forwardedTo: nullableString,
});
export type OpenPhoneCall = z.output<typeof openPhoneCall>;

const aiStatus = z.enum(['absent', 'in-progress', 'completed', 'failed']);

/** GET /v1/call-summaries/{callId}. `jobs` (structured extraction) is plan-dependent; we keep it opaque. */
export const openPhoneCallSummary = z.object({
  callId: idString,
  status: aiStatus,
  summary: z.array(z.string()).nullable(),
  nextSteps: z.array(z.string()).nullable(),
  jobs: z.array(z.unknown()).nullable().optional(),
});
export type OpenPhoneCallSummary = z.output<typeof openPhoneCallSummary>;

/** GET /v1/call-transcripts/{callId}. `userId` is set for workspace members, null for the outside party. */
export const openPhoneCallTranscript = z.object({
  callId: idString,
  createdAt: timestamp,
  status: aiStatus,
  duration: z.number().nonnegative(),
  dialogue: z
    .array(
      z.object({
        content: z.string(),
        start: z.number(),
        end: z.number(),
        identifier: z.string().nullable(),
        userId: z.string().nullable(),
      }),
    )
    .nullable(),
});
export type OpenPhoneCallTranscript = z.output<typeof openPhoneCallTranscript>;

// ---------------------------------------------------------------- REST API requests

const e164 = z.string().regex(/^\+[1-9]\d{1,14}$/, 'must be an E.164 phone number');

/** POST /v1/messages body. The docs allow exactly one recipient and 1–1600 characters that are not all blank. */
export const openPhoneSendMessageBody = z.object({
  content: z.string().min(1).max(1600).regex(/\S/, 'must not be blank'),
  from: z.union([z.string().regex(/^PN/, 'must be a phone number id (PN…)'), e164]),
  to: z.array(e164).length(1),
  userId: z.string().regex(/^US/).optional(),
  setInboxStatus: z.literal('done').optional(),
});
export type OpenPhoneSendMessageBody = z.input<typeof openPhoneSendMessageBody>;

const contactFieldInput = z.object({ name: z.string().min(1).max(100), value: z.string().nullable() });

/** POST /v1/contacts body (firstName is the one required default field); PATCH takes the same fields, all optional. */
export const openPhoneContactBody = z.object({
  defaultFields: z.object({
    firstName: z.string().nullable(),
    lastName: z.string().nullable().optional(),
    company: z.string().nullable().optional(),
    role: z.string().nullable().optional(),
    emails: z.array(contactFieldInput).optional(),
    phoneNumbers: z.array(contactFieldInput).optional(),
  }),
  externalId: z.string().min(1).max(75).nullable().optional(),
  source: z.string().min(1).max(72).optional(),
});
export type OpenPhoneContactBody = z.input<typeof openPhoneContactBody>;

export const openPhoneContactPatchBody = z.object({
  defaultFields: openPhoneContactBody.shape.defaultFields.partial().optional(),
  externalId: z.string().min(1).max(75).nullable().optional(),
});
export type OpenPhoneContactPatchBody = z.input<typeof openPhoneContactPatchBody>;
