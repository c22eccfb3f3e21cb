// Raw-chain back end for `pnpm bench`: a gRPC unary method answering from one indexed PostgreSQL
// read, built with the libraries the mesh uses (@grpc/grpc-js, pg) and nothing else.
import { createRequire } from 'node:module';
import { join } from 'node:path';

const root = process.env.BENCH_ROOT;
const grpc = createRequire(join(root, 'libs/grpc/package.json'))('@grpc/grpc-js');
const pg = createRequire(join(root, 'libs/store/package.json'))('pg');

const json = { serialize: (v) => Buffer.from(JSON.stringify(v)), deserialize: (b) => JSON.parse(b.toString('utf8')) };
const def = {
  list: {
    path: '/bench.Raw/List',
    requestStream: false,
    responseStream: false,
    requestSerialize: json.serialize,
    requestDeserialize: json.deserialize,
    responseSerialize: json.serialize,
    responseDeserialize: json.deserialize,
  },
};
const pool = new pg.Pool({ connectionString: process.env.BENCH_PG_URL, max: 10 });
const table = `"${process.env.BENCH_SCHEMA}".sites`;
const server = new grpc.Server();
server.addService(def, {
  list(call, cb) {
    pool.query(`SELECT doc FROM ${table} WHERE org_id = $1 ORDER BY id LIMIT 50`, [call.request.orgId]).then(
      (r) => cb(null, { items: r.rows.map((row) => row.doc) }),
      (err) => cb({ code: grpc.status.UNAVAILABLE, details: String(err.message) }),
    );
  },
});
server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) => {
  if (err) throw err;
  console.log(JSON.stringify({ port }));
});
process.on('SIGTERM', () => server.tryShutdown(() => pool.end().then(() => process.exit(0))));
