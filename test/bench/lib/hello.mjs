// Bare Fastify hello world: the ceiling of one Node HTTP process on this machine.
import { createRequire } from 'node:module';
import { join } from 'node:path';

const fastify = createRequire(join(process.env.BENCH_ROOT, 'services/gateway-admin/package.json'))('fastify');
const app = fastify();
app.get('/', async () => ({ hello: 'world' }));
app.listen({ port: 0, host: '127.0.0.1' }).then(() => console.log(JSON.stringify({ port: app.server.address().port })));
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
