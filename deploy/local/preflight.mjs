// Checks that the machine services the mesh needs are reachable, and says how to start them if not.
import { tcpReachable } from './supervisor.mjs';

function hostPort(url, defPort) {
  try {
    const u = new URL(url);
    return [u.hostname || '127.0.0.1', Number(u.port || defPort)];
  } catch {
    return ['127.0.0.1', defPort];
  }
}

/** Returns a list of human-readable problems (empty when everything is reachable). */
export async function preflight(env) {
  const problems = [];
  const natsUrl = (env.NATS_URL ?? 'nats://127.0.0.1:4222').split(',')[0];
  const [nh, np] = hostPort(natsUrl, 4222);
  if (!(await tcpReachable(nh, np))) {
    problems.push(
      `NATS is not reachable at ${nh}:${np} (NATS_URL). Start it with JetStream enabled, e.g.:\n` +
        `  start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server -l /var/log/nats-server.log`,
    );
  }
  const storeUrl = env.STORE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const isMongo = storeUrl.startsWith('mongodb');
  const [sh, sp] = hostPort(storeUrl, isMongo ? 27017 : 5432);
  if (!(await tcpReachable(sh, sp))) {
    problems.push(
      isMongo
        ? `The datastore (MongoDB) is not reachable at ${sh}:${sp} (STORE_URL). Start your MongoDB server or point STORE_URL elsewhere.`
        : `The datastore (PostgreSQL) is not reachable at ${sh}:${sp} (STORE_URL). Start it, e.g.:\n` +
            `  pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start`,
    );
  }
  return problems;
}
