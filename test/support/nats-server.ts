import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'nats';
import { freePort } from '../../deploy/local/supervisor.mjs';

/** Where the suites look for the server binary; NATS_SERVER_BIN overrides it. */
export const NATS_SERVER_BIN = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';

/**
 * A NATS server with JetStream of a suite's own, on a free loopback port with its store in a
 * temporary directory, so the suite can crash and restart it without touching the machine's
 * shared server. A restart keeps the store directory: streams, consumers and their positions
 * survive as they would on a real server restart.
 */
export class PrivateNatsServer {
  private child: ChildProcess | undefined;
  private readonly output: string[] = [];
  readonly storeDir = mkdtempSync(join(tmpdir(), 'paymesh-nats-'));
  port = 0;

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  /** Starts the server and waits until JetStream answers. Fails (does not skip) without the binary. */
  async start(timeoutMs = 20_000): Promise<string> {
    if (!existsSync(NATS_SERVER_BIN)) {
      throw new Error(`nats-server not found at ${NATS_SERVER_BIN}: install it (Debian: apt-get install nats-server) or set NATS_SERVER_BIN`);
    }
    if (!this.port) this.port = await freePort();
    const child = spawn(NATS_SERVER_BIN, ['-js', '-a', '127.0.0.1', '-p', String(this.port), '-sd', this.storeDir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (b: Buffer) => {
      this.output.push(...b.toString().split('\n').filter(Boolean));
      if (this.output.length > 200) this.output.splice(0, this.output.length - 200);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    this.child = child;
    await this.waitJetStream(timeoutMs);
    return this.url;
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

  private async waitJetStream(timeoutMs: number): Promise<void> {
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
    throw new Error(`nats-server on ${this.url} not ready within ${timeoutMs} ms: ${String(last)}\n${this.output.slice(-10).join('\n')}`);
  }
}
