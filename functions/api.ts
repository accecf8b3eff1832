import { handle } from 'hono/aws-lambda';
import { getApiDeps } from '../shared/src/composition/api';
import { createApp } from './api/app';

export const app = createApp(getApiDeps);
export const handler = handle(app);
