// Raw-chain front for `pnpm bench`: Fastify route -> gRPC call -> JSON answer; the minimal
// HTTP -> gRPC -> PostgreSQL chain the mesh's read routes are compared with.
import { createRequire } from 'node:module';
import { join } from 'node:path';

const root = process.env.BENCH_ROOT;
const fastify = createRequire(join(root, 'services/gateway-admin/package.json'))('fastify');
const grpc = createRequire(join(root, 'libs/grpc/package.json'))('@grpc/grpc-js');

const json = { serialize: (v) => Buffer.from(JSON.stringify(v)), deserialize: (b) => JSON.parse(b.toString('utf8')) };
const Client = grpc.makeGenericClientConstructor(
  {
    list: {
      path: '/bench.Raw/List',
      requestStream: false,
      responseStream: false,
      requestSerialize: json.serialize,
      requestDeserialize: json.deserialize,
      responseSerialize: json.serialize,
      responseDeserialize: json.deserialize,
    },
  },
  'Raw',
);
const client = new Client(`127.0.0.1:${process.env.BENCH_GRPC_PORT}`, grpc.credentials.createInsecure());
const app = fastify();
app.get('/sites/:orgId', (req, reply) => {
  client.list({ orgId: req.params.orgId }, { deadline: Date.now() + 5000 }, (err, res) => {
    if (err) reply.code(503).send({ error: 'unavailable' });
    else reply.send({ items: res.items, page: 1 });
  });
});
app.listen({ port: 0, host: '127.0.0.1' }).then(() => console.log(JSON.stringify({ port: app.server.address().port })));
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
