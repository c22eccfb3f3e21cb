import type { FastifyInstance } from 'fastify';
import Handlebars from 'handlebars';
import type { Inbox } from '../domain/inbox';

const STYLE = `body{font-family:system-ui,sans-serif;margin:2rem;color:#222}table{border-collapse:collapse;width:100%}
td,th{border-bottom:1px solid #ddd;padding:.4rem;text-align:left}pre{white-space:pre-wrap;background:#f6f6f6;padding:1rem}
iframe{width:100%;height:30rem;border:1px solid #ddd}`;

const layout = (body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>{{title}}</title><style>${STYLE}</style></head><body>${body}</body></html>`;

const listPage = Handlebars.compile(
  layout(`<h1>Mail catcher</h1><p>{{count}} message(s). SMTP on port {{smtpPort}}.
<form method="post" action="/reset" style="display:inline"><button>Delete all</button></form></p>
<table><tr><th>Received</th><th>To</th><th>Subject</th><th>Attachments</th></tr>
{{#each items}}<tr><td>{{receivedAt}}</td><td>{{join envelope.to}}</td><td><a href="/messages/{{id}}">{{subject}}</a></td><td>{{attachments.length}}</td></tr>{{/each}}
</table>`),
);

const messagePage = Handlebars.compile(
  layout(`<p><a href="/">All messages</a></p><h1>{{m.subject}}</h1>
<table><tr><th>From</th><td>{{m.from}}</td></tr><tr><th>To</th><td>{{join m.to}}</td></tr><tr><th>Cc</th><td>{{join m.cc}}</td></tr>
<tr><th>Envelope</th><td>{{m.envelope.from}} &rarr; {{join m.envelope.to}}</td></tr><tr><th>Received</th><td>{{m.receivedAt}}</td></tr></table>
<h2>Attachments</h2><ul>{{#each m.attachments}}<li><a href="/messages/{{../m.id}}/attachments/{{@index}}">{{filename}}</a> ({{contentType}}, {{size}} bytes)</li>{{else}}<li>none</li>{{/each}}</ul>
<h2>Text</h2><pre>{{m.text}}</pre>
{{#if m.html}}<h2>HTML</h2><iframe sandbox="" srcdoc="{{m.html}}"></iframe>{{/if}}`),
);

const helpers = { join: (list: unknown) => (Array.isArray(list) ? list.join(', ') : '') };

/** The web view: list, one message, attachment download, delete all. Every value is escaped. */
export async function webRoutes(app: FastifyInstance, inbox: Inbox, smtpPort: () => number): Promise<void> {
  app.get('/', async (_req, reply) => {
    const items = inbox.list();
    return reply
      .type('text/html; charset=utf-8')
      .send(listPage({ title: 'Mail catcher', items, count: items.length, smtpPort: smtpPort() }, { helpers }));
  });

  app.get<{ Params: { id: string } }>('/messages/:id', async (req, reply) => {
    const m = inbox.get(req.params.id);
    if (!m) return reply.code(404).send({ error: 'no such message' });
    return reply.type('text/html; charset=utf-8').send(messagePage({ title: m.subject, m }, { helpers }));
  });

  app.get<{ Params: { id: string; index: string } }>('/messages/:id/attachments/:index', async (req, reply) => {
    const a = inbox.get(req.params.id)?.attachments[Number(req.params.index)];
    if (!a) return reply.code(404).send({ error: 'no such attachment' });
    return reply
      .type(a.contentType)
      .header('content-disposition', `attachment; filename="${a.filename.replace(/["\\\r\n]/g, '_')}"`)
      .header('x-content-type-options', 'nosniff')
      .send(a.content);
  });

  app.post('/reset', async (_req, reply) => {
    inbox.reset();
    return reply.redirect('/', 303);
  });
}
