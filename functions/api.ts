import { handle } from 'hono/aws-lambda';
import { getCore } from '../shared/src/composition';
import { createApp } from './api/app';

export const app = createApp(() => getCore('api'));
export const handler = handle(app);
