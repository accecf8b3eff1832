import { z } from 'zod';
import { leadInfo, leadState } from './conversations';

/** `POST /api/conversations/:id/lead` (follow #20): a person says where a lead stands. */
export const leadStateRequest = z.object({ state: leadState });
export const leadStateResponse = z.object({ lead: leadInfo });
