import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { CaughtMessage, Inbox } from '../domain/inbox';

/** A message in the JSON API: attachments by metadata, their bytes at the download URL. */
export function messageJson(m: CaughtMessage) {
  return {
    ...m,
    attachments: m.attachments.map((a, index) => ({
      filename: a.filename,
      contentType: a.contentType,
      size: a.size,
      url: `/messages/${m.id}/attachments/${index}`,
    })),
  };
}

const refuseBody = z.object({ count: z.number().int().min(0).max(1000) }).strict();

/** The JSON API under `/_sandbox`: list, one message, reset, refuse switch. */
export async function apiRoutes(app: FastifyInstance, inbox: Inbox): Promise<void> {
  app.get('/messages', async () => ({ items: inbox.list().map(messageJson) }));

  app.get<{ Params: { id: string } }>('/messages/:id', async (req, reply) => {
    const m = inbox.get(req.params.id);
    if (!m) return reply.code(404).send({ error: 'no such message' });
    return messageJson(m);
  });

  app.post('/reset', async (_req, reply) => {
    inbox.reset();
    return reply.code(204).send();
  });

  app.post('/refuse', async (req, reply) => {
    const res = refuseBody.safeParse(req.body ?? {});
    if (!res.success) return reply.code(400).send({ error: `count: ${res.error.issues[0]?.message ?? 'invalid'}` });
    inbox.refuse(res.data.count);
    return { refuseNext: inbox.refusalsLeft };
  });
}
