import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type JetStreamManager, type StreamInfo } from 'nats';
import { freePort } from '../../deploy/local/supervisor.mjs';

/** Where the suites look for the server binary; NATS_SERVER_BIN overrides it. */
export const NATS_SERVER_BIN = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';

/**
 * A NATS server with JetStream of a suite's own, on a free loopback port with its store in a
 * temporary directory, so the suite can crash and restart it without touching the machine's
 * shared server. A restart keeps the store directory: streams, consumers and their positions
 * survive as they would on a real server restart.
 */
/** Membership of a {@link PrivateNatsServer} in a cluster. */
export interface ClusterMembership {
  /** Cluster name, the same on every member. */
  name: string;
  /** This server's name (JetStream peers are known by it). */
  serverName: string;
  /** Loopback port this server accepts routes on. */
  routePort: number;
  /** Route ports of every member (this one's included: the server skips a route to itself). */
  routePorts: number[];
}

export class PrivateNatsServer {
  private child: ChildProcess | undefined;
  private readonly output: string[] = [];
  readonly storeDir = mkdtempSync(join(tmpdir(), 'paymesh-nats-'));
  port = 0;

  constructor(private readonly cluster?: ClusterMembership) {}

  /** Server name in a cluster (JetStream's peer name), or undefined for a single server. */
  get serverName(): string | undefined {
    return this.cluster?.serverName;
  }

  /** Whether the process is running. */
  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  /** Starts the server and waits until JetStream answers. Fails (does not skip) without the binary. */
  async start(timeoutMs = 20_000): Promise<string> {
    await this.spawn();
    await this.waitJetStream(timeoutMs);
    return this.url;
  }

  /**
   * Starts the process without waiting for JetStream: a cluster member's JetStream answers only
   * once a quorum of members runs, so a cluster spawns every member first.
   */
  async spawn(): Promise<void> {
    if (!existsSync(NATS_SERVER_BIN)) {
      throw new Error(
        `nats-server not found at ${NATS_SERVER_BIN}: install it (Debian: apt-get install nats-server) or set NATS_SERVER_BIN`,
      );
    }
    if (!this.port) this.port = await freePort();
    const args = ['-js', '-a', '127.0.0.1', '-p', String(this.port), '-sd', this.storeDir];
    if (this.cluster) {
      const c = this.cluster;
      args.push(
        '--server_name',
        c.serverName,
        '--cluster_name',
        c.name,
        '--cluster',
        `nats://127.0.0.1:${c.routePort}`,
        '--routes',
        c.routePorts.map((p) => `nats://127.0.0.1:${p}`).join(','),
      );
    }
    const child = spawn(NATS_SERVER_BIN, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (b: Buffer) => {
      this.output.push(...b.toString().split('\n').filter(Boolean));
      if (this.output.length > 200) this.output.splice(0, this.output.length - 200);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    this.child = child;
  }

  /** The last lines the server wrote (for failure messages). */
  lastOutput(lines = 10): string {
    return this.output.slice(-lines).join('\n');
  }

  /** SIGKILLs the server (a crash: nothing flushed on purpose) and waits for the process to end. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }

  /** Crash and start again on the same port with the same store directory. */
  async restart(timeoutMs = 30_000): Promise<void> {
    await this.kill();
    await this.start(timeoutMs);
  }

  /** Stops the server and removes its store. */
  async stop(): Promise<void> {
    await this.kill();
    rmSync(this.storeDir, { recursive: true, force: true });
  }

  /** Waits until JetStream answers through this server (in a cluster: once a meta leader exists). */
  async waitJetStream(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last: unknown;
    while (Date.now() < deadline) {
      if (this.child?.exitCode !== null && this.child?.exitCode !== undefined) {
        throw new Error(`nats-server exited (${this.child.exitCode}):\n${this.output.slice(-10).join('\n')}`);
      }
      try {
        const nc = await connect({ servers: this.url, timeout: 1000, reconnect: false });
        try {
          const jsm = await nc.jetstreamManager({ timeout: 2000 });
          await jsm.getAccountInfo();
          return;
        } finally {
          await nc.close();
        }
      } catch (err) {
        last = err;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(
      `nats-server on ${this.url} not ready within ${timeoutMs} ms: ${String(last)}\n${this.output.slice(-10).join('\n')}`,
    );
  }
}

/** Where one replicated stream lives: its leader and the state of every copy. */
export interface StreamPlacement {
  stream: string;
  replicas: number;
  leader: string | undefined;
  /** Every peer holding a copy (leader included) and whether it is current. */
  peers: { name: string; current: boolean; offline: boolean }[];
}

/**
 * A JetStream cluster of private servers on loopback: every member on free client and route ports
 * with its own store directory, routes to all members. A member can be crashed and restarted with
 * its store, as a node of a production cluster would be.
 */
export class PrivateNatsCluster {
  readonly nodes: PrivateNatsServer[];

  private constructor(nodes: PrivateNatsServer[]) {
    this.nodes = nodes;
  }

  /** Starts `size` members and waits until JetStream answers through each of them. */
  static async start(size = 3, timeoutMs = 60_000): Promise<PrivateNatsCluster> {
    const name = `paymesh-${process.pid}-${Date.now().toString(36)}`;
    const routePorts: number[] = [];
    for (let i = 0; i < size; i++) routePorts.push(await freePort());
    const cluster = new PrivateNatsCluster(
      routePorts.map((routePort, i) => new PrivateNatsServer({ name, serverName: `n${i + 1}`, routePort, routePorts })),
    );
    try {
      for (const node of cluster.nodes) await node.spawn();
      await Promise.all(cluster.nodes.map((n) => n.waitJetStream(timeoutMs)));
    } catch (err) {
      await cluster.stop();
      throw err;
    }
    return cluster;
  }

  /** Every member's client URL, comma-separated (the form NATS_URL takes). */
  get url(): string {
    return this.nodes.map((n) => n.url).join(',');
  }

  /** Client URL of a running member, for a tool connection that must not wait on a dead one. */
  get liveUrl(): string {
    const node = this.nodes.find((n) => n.running);
    if (!node) throw new Error('no cluster member is running');
    return node.url;
  }

  node(serverName: string): PrivateNatsServer {
    const node = this.nodes.find((n) => n.serverName === serverName);
    if (!node) throw new Error(`no cluster member named ${serverName}`);
    return node;
  }

  /** Leader and copies of every stream whose name starts with `prefix`, as JetStream reports them. */
  async placements(prefix: string): Promise<StreamPlacement[]> {
    return this.withJsm(async (jsm) => {
      const out: StreamPlacement[] = [];
      for await (const si of jsm.streams.list()) {
        if (si.config.name.startsWith(prefix)) out.push(placementOf(si));
      }
      return out;
    });
  }

  async stop(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.stop()));
  }

  private async withJsm<T>(fn: (jsm: JetStreamManager) => Promise<T>): Promise<T> {
    const nc = await connect({
      servers: this.nodes.filter((n) => n.running).map((n) => n.url),
      timeout: 2000,
      reconnect: false,
    });
    try {
      return await fn(await nc.jetstreamManager({ timeout: 5000 }));
    } finally {
      await nc.close();
    }
  }
}

function placementOf(si: StreamInfo): StreamPlacement {
  const c = si.cluster;
  const peers = [
    ...(c?.leader ? [{ name: c.leader, current: true, offline: false }] : []),
    ...(c?.replicas ?? []).map((r) => ({ name: r.name, current: r.current, offline: r.offline ?? false })),
  ];
  return { stream: si.config.name, replicas: si.config.num_replicas, leader: c?.leader, peers };
}
