import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyRuntimeTree, runtimePlan } from '../../deploy/image/runtime-tree.mjs';
import { BACKEND_SERVICES } from '../../libs/runtime/src/services';
import { dropNamespace, eventually, NATS_URL, PG_URL } from '../support/mesh';
import { ROOT } from './chart';
import { SERVICE_DIRS } from './topology';

/** One Dockerfile instruction, continuation lines joined. */
interface Instruction {
  op: string;
  args: string;
}
interface Stage {
  name: string;
  from: string;
  instructions: Instruction[];
}

/** The Dockerfile's global ARGs and its stages, in order (enough of the syntax for this file). */
function parseDockerfile(text: string): { args: Record<string, string>; stages: Stage[] } {
  const lines = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  const args: Record<string, string> = {};
  const stages: Stage[] = [];
  for (const line of lines) {
    const [, op = '', rest = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    const instruction = { op: op.toUpperCase(), args: rest.replace(/\s+/g, ' ') };
    if (instruction.op === 'FROM') {
      const m = /^(\S+)(?: AS (\S+))?$/i.exec(instruction.args);
      if (!m) throw new Error(`unparsed FROM ${instruction.args}`);
      stages.push({ from: m[1]!, name: m[2] ?? String(stages.length), instructions: [] });
    } else if (stages.length === 0) {
      if (instruction.op === 'ARG') {
        const [k, v = ''] = instruction.args.split('=');
        args[k!] = v;
      }
    } else {
      stages.at(-1)!.instructions.push(instruction);
    }
  }
  return { args, stages };
}

/** End-of-life dates of the Node.js LTS lines (nodejs.org release schedule). */
const NODE_LTS_END_OF_LIFE: Record<number, string> = { 22: '2027-04-30', 24: '2028-04-30' };

const dockerfileText = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
const dockerfile = parseDockerfile(dockerfileText);
const stage = (name: string) => {
  const s = dockerfile.stages.find((st) => st.name === name);
  if (!s) throw new Error(`Dockerfile has no stage ${name}`);
  return s;
};
/** Every stage an image is made of: the stages the build copies from are not part of one. */
const runtimeStages = () => dockerfile.stages.filter((s) => s.name !== 'build');
const engines: string = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).engines.node;
/** Major versions package.json `engines` admits: `^22.12.0 || ^24.0.0` -> [22, 24]. */
const engineMajors = engines.split('||').map((range) => {
  const m = /^\s*\^(\d+)\.\d+\.\d+\s*$/.exec(range);
  if (!m) throw new Error(`engines.node range "${range}" is not of the form ^MAJOR.MINOR.PATCH`);
  return Number(m[1]);
});

describe('Dockerfile', () => {
  it('runs on a supported Node.js LTS line that package.json engines names', () => {
    const m = /^node:(\d+)-slim$/.exec(dockerfile.args.NODE_IMAGE ?? '');
    expect(m, `NODE_IMAGE=${dockerfile.args.NODE_IMAGE}`).not.toBeNull();
    const major = Number(m![1]);
    expect(engineMajors).toContain(major);
    for (const line of engineMajors) {
      const eol = NODE_LTS_END_OF_LIFE[line];
      expect(eol, `Node.js ${line} is not an LTS line`).toBeDefined();
      expect(
        new Date(`${eol}T00:00:00Z`).getTime(),
        `Node.js ${line} reached its end of life on ${eol}`,
      ).toBeGreaterThan(Date.now());
    }
    // Every stage starts from that image or from another stage.
    for (const s of dockerfile.stages)
      expect(['${NODE_IMAGE}', ...dockerfile.stages.map((o) => o.name)], s.name).toContain(s.from);
    expect(dockerfileText).not.toMatch(/node:20/);
  });

  it('builds with the pnpm the workspace pins, from the lockfile, then prunes to production dependencies', () => {
    const pinned = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).packageManager.replace('pnpm@', '');
    const build = stage('build')
      .instructions.map((i) => `${i.op} ${i.args}`)
      .join('\n');
    expect(build).toContain(`npm install -g pnpm@${pinned}`);
    expect(build).toContain(
      'pnpm install --frozen-lockfile --offline && pnpm run build && pnpm install --frozen-lockfile --offline --prod',
    );
    expect(build).toContain('node deploy/image/runtime-tree.mjs /app /runtime');
  });

  it('has a documents target with Chromium and a default services target without, on one base', () => {
    expect(dockerfile.stages.map((s) => [s.name, s.from])).toEqual([
      ['build', '${NODE_IMAGE}'],
      ['base', '${NODE_IMAGE}'],
      ['documents', 'base'],
      ['services', 'base'],
    ]);
    for (const s of dockerfile.stages) {
      const installsChromium = s.instructions.some((i) => i.op === 'RUN' && /\bchromium\b/.test(i.args));
      expect(installsChromium, s.name).toBe(s.name === 'documents');
    }
    const documents = stage('documents').instructions;
    expect(documents).toContainEqual({ op: 'ENV', args: 'SERVICE=documents' });
    // The documents image runs as the unprivileged user again after installing as root.
    expect(documents.filter((i) => i.op === 'USER').at(-1)).toEqual({ op: 'USER', args: '10001:10001' });
    expect(
      stage('services')
        .instructions.filter((i) => i.op === 'EXPOSE')
        .flatMap((i) => i.args.split(' ').map(Number))
        .sort(),
    ).toEqual(
      [
        8080,
        8081,
        ...Object.entries(BACKEND_SERVICES)
          .filter(([s]) => s !== 'documents')
          .map(([, b]) => b.grpcPort),
      ].sort(),
    );
  });

  it('puts only the runtime tree into the images: no tests, sandboxes, docs or sources', () => {
    for (const s of runtimeStages()) {
      for (const copy of s.instructions.filter((i) => i.op === 'COPY' || i.op === 'ADD')) {
        expect(copy, s.name).toEqual({ op: 'COPY', args: '--from=build /runtime /app' });
        expect(copy.args).not.toMatch(/(^|[\s/])(test|sandboxes|docs|src)(\/|\s|$)/);
      }
    }
    expect(stage('base').instructions.filter((i) => i.op === 'COPY')).toHaveLength(1);
  });

  it('runs as the unprivileged user, with a health check and the service named by $SERVICE', () => {
    const base = stage('base').instructions;
    expect(base).toContainEqual({ op: 'USER', args: '10001:10001' });
    const health = base.find((i) => i.op === 'HEALTHCHECK');
    expect(health?.args).toMatch(
      /^--interval=\S+ --timeout=\S+ --start-period=\S+ --retries=\d+ CMD \["node", "deploy\/image\/healthcheck.mjs"\]$/,
    );
    expect(runtimePlan(ROOT).map((e) => e.path)).toContain('deploy/image/healthcheck.mjs');
    expect(dockerfileText).toMatch(
      /exec node --enable-source-maps \\"services\/\$\{SERVICE:\?[^}]*\}\/dist\/main\.js\\"/,
    );
    for (const service of SERVICE_DIRS) {
      expect(JSON.parse(readFileSync(join(ROOT, 'services', service, 'package.json'), 'utf8')).main, service).toBe(
        'dist/main.js',
      );
    }
    const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n');
    expect(ignored).toEqual(expect.arrayContaining(['**/node_modules', '**/dist']));
  });
});

describe('runtime tree (deploy/image/runtime-tree.mjs)', () => {
  const plan = runtimePlan(ROOT);
  const paths = plan.map((e) => e.path);

  it('takes every library and service package, and nothing of tests, sandboxes, docs or sources', () => {
    for (const group of ['libs', 'services']) {
      for (const name of readdirSync(join(ROOT, group)).filter((n) =>
        existsSync(join(ROOT, group, n, 'package.json')),
      )) {
        expect(paths, `${group}/${name}`).toEqual(
          expect.arrayContaining([
            `${group}/${name}/package.json`,
            `${group}/${name}/dist`,
            `${group}/${name}/node_modules`,
          ]),
        );
      }
    }
    expect(paths).toEqual(
      expect.arrayContaining([
        'package.json',
        'node_modules',
        'services/gateway-public/web/dist',
        'services/gateway-public/web/messages',
        'services/gateway-admin/web/dist',
        'deploy/local/certs.mjs',
      ]),
    );
    for (const path of paths) expect(path).not.toMatch(/(^|\/)(test|sandboxes|docs|src|bench)(\/|$)/);
    expect(paths.filter((p) => p.startsWith('sandboxes/') || p.startsWith('test/'))).toEqual([]);
  });

  describe('copied from this checkout, it runs the services and the image health check reports them', () => {
    const namespace = `t${randomBytes(4).toString('hex')}`;
    let tree: string;
    const running: ChildProcess[] = [];
    const logs = new Map<string, string>();

    const freePort = () =>
      new Promise<number>((resolve, reject) => {
        const srv = createServer();
        srv.once('error', reject);
        srv.listen(0, '127.0.0.1', () => {
          const { port } = srv.address() as { port: number };
          srv.close(() => resolve(port));
        });
      });

    /** Starts a service from the tree and waits for its "<name> ready" line. */
    async function start(service: string, env: Record<string, string>): Promise<ChildProcess> {
      const child = spawn(process.execPath, ['--enable-source-maps', `services/${service}/dist/main.js`], {
        cwd: tree,
        env: {
          PATH: process.env.PATH ?? '',
          NODE_ENV: 'test',
          PAYMESH_DEV_DEFAULTS: 'true',
          STORE_URL: PG_URL,
          STORE_NAMESPACE: namespace,
          STORE_POOL_MAX: '2',
          BUS_NAMESPACE: namespace,
          NATS_URL,
          GRPC_TLS_CA_FILE: join(tree, 'certs', 'ca.crt'),
          GRPC_TLS_CERT_FILE: join(tree, 'certs', `${service}.crt`),
          GRPC_TLS_KEY_FILE: join(tree, 'certs', `${service}.key`),
          ...env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      running.push(child);
      logs.set(service, '');
      const collect = (chunk: Buffer) => logs.set(service, logs.get(service) + chunk.toString());
      child.stdout!.on('data', collect);
      child.stderr!.on('data', collect);
      await eventually(
        () => {
          if (child.exitCode !== null) throw new Error(`${service} exited ${child.exitCode}: ${logs.get(service)}`);
          return logs.get(service)!.includes(`${service} ready`);
        },
        30_000,
        50,
      );
      return child;
    }

    const stop = (child: ChildProcess) =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });

    /** Exit status of the image's HEALTHCHECK command, run from the tree with `env`. */
    const healthcheck = (env: Record<string, string>) =>
      spawnSync(process.execPath, ['deploy/image/healthcheck.mjs'], {
        cwd: tree,
        env: { PATH: process.env.PATH ?? '', ...env },
        encoding: 'utf8',
        timeout: 10_000,
      }).status;

    beforeAll(() => {
      tree = mkdtempSync(join(tmpdir(), 'paymesh-runtime-tree-'));
      // The root node_modules (the package store) is linked, not copied: the rest is the tree as the image has it.
      copyRuntimeTree(ROOT, tree, { link: ['node_modules'] });
      const certs = spawnSync(
        process.execPath,
        ['deploy/local/certs.mjs', join(tree, 'certs'), 'tax', 'gateway-public'],
        { cwd: tree, encoding: 'utf8' },
      );
      if (certs.status !== 0) throw new Error(`certs.mjs from the tree failed: ${certs.stderr}`);
    });

    afterAll(async () => {
      await Promise.all(running.map(stop));
      await dropNamespace(namespace);
      if (tree) rmSync(tree, { recursive: true, force: true });
    });

    it('holds no TypeScript sources, type declarations or compiled tests outside node_modules', () => {
      const found: string[] = [];
      const walk = (dir: string) => {
        for (const e of readdirSync(dir, { withFileTypes: true })) {
          if (e.name === 'node_modules' || e.name === 'certs') continue;
          const path = join(dir, e.name);
          if (e.isDirectory()) walk(path);
          else if (/\.ts$|\.test\.js$|\.tsbuildinfo$/.test(e.name)) found.push(path);
        }
      };
      walk(tree);
      expect(found).toEqual([]);
      expect(existsSync(join(tree, 'services', 'billing', 'dist', 'main.js'))).toBe(true);
    });

    it('a backend: healthy over the health-only port and over mutual TLS on its gRPC port; unhealthy once stopped', async () => {
      const [grpcPort, healthPort] = [await freePort(), await freePort()];
      const tax = await start('tax', { GRPC_PORT: String(grpcPort), GRPC_HEALTH_PORT: String(healthPort) });
      const mtls = {
        SERVICE: 'tax',
        GRPC_PORT: String(grpcPort),
        GRPC_TLS_CA_FILE: join(tree, 'certs', 'ca.crt'),
        GRPC_TLS_CERT_FILE: join(tree, 'certs', 'tax.crt'),
        GRPC_TLS_KEY_FILE: join(tree, 'certs', 'tax.key'),
      };
      expect(healthcheck({ SERVICE: 'tax', GRPC_HEALTH_PORT: String(healthPort) })).toBe(0);
      expect(healthcheck(mtls)).toBe(0);
      // Plaintext towards the mutual-TLS port is refused.
      expect(healthcheck({ SERVICE: 'tax', GRPC_PORT: String(grpcPort), GRPC_INSECURE: 'true' })).toBe(1);
      await stop(tax);
      expect(healthcheck({ SERVICE: 'tax', GRPC_HEALTH_PORT: String(healthPort) })).toBe(1);
      expect(healthcheck(mtls)).toBe(1);
    }, 60_000);

    it('a gateway (with its hosted pages from the tree): healthy on /health; unhealthy once stopped; no SERVICE: unhealthy', async () => {
      const port = await freePort();
      const gateway = await start('gateway-public', { PORT: String(port), REDIS_URL: 'redis://127.0.0.1:6379' });
      expect(healthcheck({ SERVICE: 'gateway-public', PORT: String(port) })).toBe(0);
      const manifest = JSON.parse(
        readFileSync(join(tree, 'services', 'gateway-public', 'web', 'dist', 'manifest.json'), 'utf8'),
      );
      const script = await fetch(`http://127.0.0.1:${port}/assets/${manifest.checkout.js}`);
      expect(script.status).toBe(200);
      expect(script.headers.get('content-type')).toMatch(/javascript/);
      await stop(gateway);
      expect(healthcheck({ SERVICE: 'gateway-public', PORT: String(port) })).toBe(1);
      expect(healthcheck({})).toBe(1);
    }, 60_000);
  });
});
