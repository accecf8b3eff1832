import type { Hono } from 'hono';
import { DynamoFactStore } from '../../../shared/src/adapters/dynamo/fact-store';
import {
  deleteConversationRequest,
  deleteConversationResponse,
  deletionPreview,
  deletionsResponse,
} from '../../../shared/src/contracts/deletion';
import { deleteConversation, previewDeletion } from '../../../shared/src/use-cases/delete-conversation';
import { exportConversation } from '../../../shared/src/use-cases/export-conversation';
import type { AppEnv } from '../app';
import { currentUser, readJson, reply } from '../http';
import { corpusFor } from '../search-corpus';

/** An admin's export and delete of one conversation, and the tombstones deletes leave (issue 19). */
export function registerConversationAdminRoutes(app: Hono<AppEnv>) {
  // Privacy requests and the team's own records: one file, the same one `npm run ops conversation:export` writes.
  app.get('/api/admin/conversations/:id/export', async (c) => {
    const core = c.get('core');
    const file = await exportConversation(
      { ...core, facts: new DynamoFactStore(core.table) },
      { conversationId: c.req.param('id'), exportedBy: currentUser(c).email },
    );
    c.header('content-disposition', `attachment; filename="conversation-${file.conversation.id}.json"`);
    return c.json(file);
  });

  // Admin delete (issue 19): what it would erase, the erase itself (the id typed again), and the tombstones.
  app.get('/api/admin/conversations/:id/deletion', async (c) => {
    return reply(c, deletionPreview, await previewDeletion(c.get('core'), c.req.param('id')));
  });

  app.post('/api/admin/conversations/:id/delete', async (c) => {
    const { confirm } = await readJson(c, deleteConversationRequest);
    const core = c.get('core');
    const tombstone = await deleteConversation(
      { ...core, search: await corpusFor(core) },
      { conversationId: c.req.param('id'), confirm, deletedBy: currentUser(c).email },
    );
    return reply(c, deleteConversationResponse, { tombstone });
  });

  app.get('/api/admin/deletions', async (c) => {
    const tombstones = await c.get('core').eraser.listTombstones({ limit: 50 });
    return reply(c, deletionsResponse, { tombstones });
  });
}
